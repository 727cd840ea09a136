"""What the autotune engine reports while it works: the live event union, beside the engine.

The TUI and the CLI both consume these; the engine calls its `EventSink` on the event-loop thread,
with members of the `AutotuneEvent` union only. The trials emit them and the outputs read them, so
they sit below both wings (the `autotune-wings` contract). How they read is outputs/presenter.py's;
the result data they carry is tuning/results.py's.
"""

from __future__ import annotations

from typing import Callable, Union

from pydantic import BaseModel

from ltx_wizard.core.tuning.results import AutotuneSummary, Confirmation, TrialResult


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


class AutotuneFinished(BaseModel):
    summary: AutotuneSummary


AutotuneEvent = Union[
    TrialStarted,
    TrialProgress,
    TrialPhase,
    VramUpdate,
    LogLine,
    TrialFinished,
    ConfirmationStarted,
    ConfirmationFinished,
    AutotuneFinished,
]
EventSink = Callable[[AutotuneEvent], None]  # the engine's only way out: TUI controller, CLI printer
