"""What the autotune engine reports while it works, and what it leaves behind.

The TUI and the CLI both consume these; the engine calls its `EventSink` on the event-loop thread,
with members of the `AutotuneEvent` union only. How they read is autotune/outputs/presenter.py's.
"""

from __future__ import annotations

from typing import Callable, Literal, Union

from pydantic import BaseModel, ConfigDict

Outcome = Literal["ok", "oom", "nan", "crash", "timeout", "cancelled", "skipped"]


class TrialResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    index: int  # 1-based trial number; skipped trials are numbered too, for the record
    change: str  # "baseline", "quantization -> null", "batch_size 1 -> 2", ...
    changes: dict[str, object] = {}  # dotted config key -> value this trial set
    outcome: Outcome
    step_time_s: float | None = None  # steady state, from step-line arrival times
    sec_per_sample: float | None = None  # step time / samples per step: what "faster" means
    peak_vram_gb: float | None = None  # sampled during the trial
    vram_method: str | None = None  # per-process, device-minus-baseline, simulated, n/a
    trainer_peak_gb: float | None = None  # the trainer's own figure, for comparison
    trainer_step_time_s: float | None = None  # the trainer's Time/Step on the last step line
    wall_s: float | None = None
    reason: str = ""  # why it ended the way it did, or why it was skipped
    decision: str = ""  # the rules' verdict: why it was kept or rejected (schedule.py)
    proof: str | None = None  # the output line that proves the outcome
    kept: bool = False  # its change is part of the winner

    @property
    def ran(self) -> bool:
        return self.outcome != "skipped"


class Confirmation(BaseModel):
    """The one run of the winner with its own validation (or of a fallback, when that failed)."""

    model_config = ConfigDict(frozen=True)

    trial: int | None  # the trial whose config was confirmed
    outcome: Outcome
    peak_vram_gb: float | None = None
    reason: str = ""
    proof: str | None = None
    wall_s: float | None = None
    gpus: int = 1  # the confirmation uses every GPU of the plan, with the real launch
    fused: bool = False  # ran in the same process as the last trial (after its step 40)
    changes: dict[str, object] = {}  # the config changes confirmed
    # from "Starting training" to the validation samples saved: its steps and one validation,
    # none of the loading before (the duration estimate's measure of a validation pass)
    trained_to_validated_s: float | None = None

    @property
    def ok(self) -> bool:
        return self.outcome == "ok"


class TrialStarted(BaseModel):
    index: int
    change: str
    total_steps: int
    config_path: str
    # side by side: this run guesses that trial `ahead_of` is kept (autotune/trials/side_by_side.py); if it is not,
    # the run is dropped (TrialPhase "dropped") and trial `index` runs again with another config
    ahead_of: int | None = None
    gpus: tuple[int, ...] = ()  # the GPUs it runs on (their order in the probe); () not said


class TrialProgress(BaseModel):
    index: int
    step: int
    total: int
    loss: float | None = None
    step_time_s: float | None = None


class TrialPhase(BaseModel):
    """What a running trial (or the confirmation) is doing now, each time it changes."""

    index: int
    phase: str  # a key of autotune/trials/phase.py PHASE_LABEL ("dropped": a guess run ahead, not needed)
    label: str  # what a person reads: "loading the model", "training to step 2, then validating"
    confirmation: bool = False  # the confirmation of trial `index`, not the trial itself


class VramUpdate(BaseModel):
    used_mib: list[int | None]
    total_mib: list[int | None]
    # which GPU each reading is (order in the probe): side by side, each trial reports its own
    # GPU; () reads as 0, 1, ...
    gpus: tuple[int, ...] = ()


class LogLine(BaseModel):
    text: str


class TrialFinished(BaseModel):
    result: TrialResult


class ConfirmationStarted(BaseModel):
    trial: int | None
    gpus: int = 1


class ConfirmationFinished(BaseModel):
    confirmation: Confirmation


class AutotuneSummary(BaseModel):
    trials: list[TrialResult]
    winner: int | None
    config_patched: bool
    winner_changes: dict[str, object] = {}
    launch_command: list[str] = []
    launch_line: str = ""
    stop_reason: str = ""
    confirmations: list[Confirmation] = []  # in order; the last one decided the winner
    setup_failure: str | None = None  # autotune stopped before a result (autotune/sweep/setup_stop.py)
    schedule_note: str = ""  # an allowed batch change: the rescaled steps and new duration

    @property
    def confirmation(self) -> Confirmation | None:
        return self.confirmations[-1] if self.confirmations else None

    def contract_json(self) -> dict[str, object]:
        """`ltx-wizard autotune --json`."""
        return {
            "trials": [
                {
                    "index": t.index,
                    "change": t.change,
                    "outcome": t.outcome,
                    "step_time_s": t.step_time_s,
                    "peak_vram_gb": t.peak_vram_gb,
                    "reason": t.reason,
                }
                for t in self.trials
            ],
            "winner": self.winner,
            "config_patched": self.config_patched,
            "confirmation": None if self.confirmation is None else {
                "outcome": self.confirmation.outcome,
                "peak_vram_gb": self.confirmation.peak_vram_gb,
                "reason": self.confirmation.reason,
            },
        }


class AutotuneFinished(BaseModel):
    summary: AutotuneSummary


AutotuneEvent = Union[TrialStarted, TrialProgress, TrialPhase, VramUpdate, LogLine, TrialFinished,
                      ConfirmationStarted, ConfirmationFinished, AutotuneFinished]
EventSink = Callable[[AutotuneEvent], None]  # the engine's only way out: TUI controller, CLI printer
