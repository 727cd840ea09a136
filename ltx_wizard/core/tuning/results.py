"""What an autotune run found: each trial's result, the winner's confirmation and the summary.

Low in the core so the plan's renderer, the tuned record and the schedule's rules can name them;
the engine's live events that carry them are autotune/events.py's.
"""

from __future__ import annotations

from typing import Literal

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
    # from "Starting training" to the validation samples saved, in the trainer's seconds (a
    # stand-in's scaled back): its steps and one validation, none of the loading before (the
    # duration estimate's measure of a validation pass)
    trained_to_validated_s: float | None = None

    @property
    def ok(self) -> bool:
        return self.outcome == "ok"


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
            "confirmation": None
            if self.confirmation is None
            else {
                "outcome": self.confirmation.outcome,
                "peak_vram_gb": self.confirmation.peak_vram_gb,
                "reason": self.confirmation.reason,
            },
        }
