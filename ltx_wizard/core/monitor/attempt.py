"""One start of a training run as its log tells it (an attempt), and a checkpoint it logged.

An attempt is what one launch.sh marker starts (or the log's start): its failure is not the next
attempt's. The fields the history scan fills are kept between processes (cursor_store.py); those
only the tail's full parse gives (the failure cause, the statistics) are not.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ltx_wizard.core.monitor.history_doc import AttemptDoc
from ltx_wizard.core.trainer_output.line_events import Statistics
from ltx_wizard.core.trainer_output.failure_cause import FailureCause


@dataclass(frozen=True)
class Checkpoint:
    step: int
    path: str  # as the trainer logged it (relative to output_dir)


@dataclass
class Attempt:
    """One start of the run (one launch.sh marker, or the log's start)."""

    started: str | None = None  # launch.sh's UTC time
    pid: int | None = None
    resumed_from: int | None = None
    last_step: int = -1
    validation_steps: list[int] = field(default_factory=list)
    cause: FailureCause = field(default_factory=FailureCause)
    nan_step: int | None = None
    oom_in_validation: bool = False
    statistics: Statistics | None = None
    minutes: float | None = None  # the trainer's "Total time" (also read from the history)
    in_traceback_validation: bool = False
    # the latest step line's (step, projected seconds for this launch's steps): trainer.py
    # LtxvTrainer.train prints `Total Time` = elapsed / steps done * steps this launch runs
    projection: tuple[int, float] | None = None
    # bash's or launch.sh's own line naming why the trainer never started (`exec: uv: not found`)
    launch_error: str | None = None

    def ran(self) -> bool:
        return self.started is not None or self.last_step >= 0 or self.minutes is not None

    @property
    def initial_step(self) -> int:
        """The step this launch counts from (trainer.py: the resumed state's global step)."""
        return self.resumed_from or 0

    def to_doc(self) -> AttemptDoc:
        return AttemptDoc(
            started=self.started,
            pid=self.pid,
            resumed_from=self.resumed_from,
            last_step=self.last_step,
            validation_steps=list(self.validation_steps),
            nan_step=self.nan_step,
            minutes=self.minutes,
            projection=self.projection,
            launch_error=self.launch_error,
        )

    @classmethod
    def from_doc(cls, doc: AttemptDoc) -> Attempt:
        """The attempt `to_doc` kept (checked by the codec as the cursor was read)."""
        return cls(
            started=doc.started,
            pid=doc.pid,
            resumed_from=doc.resumed_from,
            last_step=doc.last_step,
            validation_steps=list(doc.validation_steps[-20:]),
            nan_step=doc.nan_step,
            minutes=doc.minutes,
            projection=doc.projection,
            launch_error=doc.launch_error,
        )
