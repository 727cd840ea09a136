"""What a running trial is doing, from the trainer's own log lines.

The trainer logs one line as it starts each long stage of its set-up (trainer_output/stages.py
names them). With --disable-progress-bars it logs
nothing when a validation starts, so that phase is inferred: the run validates at a known step
and logs a step line only every STEP_LINE_EVERY steps, so once no step line is due before the
validation step, validating is what comes next.
"""

from __future__ import annotations

from dataclasses import dataclass

from ltx_wizard.core.trainer_output.line_events import (
    CheckpointSaved,
    Statistics,
    StepEvent,
    TrainerEvent,
    TrainerPhase,
    ValidationSaved,
)
from ltx_wizard.core.trainer_output.grammar import STEP_LINE_EVERY

PHASE_LABEL = {
    "starting": "starting",
    "text_encoder": "loading the text encoder",
    "prompts": "encoding the validation prompts",
    "media": "encoding the validation media",
    "loading": "loading the model",
    "quantizing": "quantizing the model",
    "training": "training",
    "validating": "validating",
    "saving": "saving the weights",
    "finishing": "finishing",
    "ended": "ended",  # the process is gone; the trial's result comes next
    "dropped": "dropped",  # a guess run ahead (side_by_side.py) whose trial went another way
}


@dataclass
class PhaseTracker:
    """One run's phase, from its trainer events in order; `feed` says when it changed."""

    total: int  # the run's optimizer steps
    validate_at: int | None = None  # the step it validates after; None: it never validates
    phase: str | None = None
    step: int = 0  # the last step line's step
    _label: str = ""

    def start(self) -> str | None:
        return self._set("starting")

    def end(self) -> str | None:
        return self._set("ended")

    def feed(self, event: TrainerEvent) -> str | None:
        """The new phase when `event` changed it, else None (other ranks never do)."""
        if getattr(event, "rank", None) not in (None, 0):
            return None
        new: str | None
        if isinstance(event, TrainerPhase):
            new = self._training() if event.phase == "training" else event.phase
        elif isinstance(event, StepEvent):
            self.step = event.step
            new = self._training()
        elif isinstance(event, ValidationSaved):
            new = "saving" if event.step >= self.total else "training"
        elif isinstance(event, (CheckpointSaved, Statistics)):
            new = "finishing" if getattr(event, "step", self.total) >= self.total else self.phase
        else:
            return None
        return self._set(new) if new is not None else None

    @property
    def label(self) -> str:
        """What a person reads: `loading the model`, `training to step 2, then validating`."""
        return self._label

    def _training(self) -> str:
        at = self.validate_at
        next_line = (self.step // STEP_LINE_EVERY + 1) * STEP_LINE_EVERY
        if at is not None and self.step < at < next_line:
            return "validating"  # no step line comes before it
        return "saving" if self.step >= self.total else "training"

    def _set(self, phase: str) -> str | None:
        label = PHASE_LABEL.get(phase, phase)
        if phase == "validating" and self.validate_at is not None and self.validate_at - self.step > 1:
            label = f"training to step {self.validate_at}, then validating"
        if (phase, label) == (self.phase, self._label):
            return None
        self.phase, self._label = phase, label
        return phase
