"""One start of a training run as its log tells it (an attempt), and a checkpoint it logged.

An attempt is what one launch.sh marker starts (or the log's start): its failure is not the next
attempt's. The fields the history scan fills are kept between processes (cursor_store.py); those
only the tail's full parse gives (the failure cause, the statistics) are not.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, TypeVar

from ltx_wizard.core.trainer_output.events import Statistics
from ltx_wizard.core.trainer_output.failure_cause import FailureCause

T = TypeVar("T")


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

    def to_json(self) -> dict[str, Any]:
        return {
            "started": self.started,
            "pid": self.pid,
            "resumed_from": self.resumed_from,
            "last_step": self.last_step,
            "validation_steps": self.validation_steps,
            "nan_step": self.nan_step,
            "minutes": self.minutes,
            "projection": list(self.projection) if self.projection else None,
            "launch_error": self.launch_error,
        }

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> Attempt:
        """Raises ValueError/TypeError/KeyError on anything to_json would not have written."""
        projection = doc["projection"]
        last = doc["last_step"]
        if type(last) is not int or last < -1:
            raise ValueError("last_step")
        return cls(
            started=checked.optional(checked.text, doc["started"]),
            pid=checked.optional(checked.count, doc["pid"]),
            resumed_from=checked.optional(checked.count, doc["resumed_from"]),
            last_step=last,
            validation_steps=[checked.count(s) for s in doc["validation_steps"]][-20:],
            nan_step=checked.optional(checked.count, doc["nan_step"]),
            minutes=checked.optional(checked.number, doc["minutes"]),
            projection=None
            if projection is None
            else (checked.count(projection[0]), checked.number(projection[1])),
            # .get: a store written before this field was kept reads as none seen
            launch_error=checked.optional(checked.text, doc.get("launch_error")),
        )


class checked:
    """Each returns its value when it is what the writer writes, else raises ValueError."""

    @staticmethod
    def count(value: object) -> int:
        if type(value) is not int or not 0 <= value < 10**40:
            raise ValueError("not a count")
        return value

    @staticmethod
    def number(value: object) -> float:
        if not (type(value) is int or type(value) is float) or not math.isfinite(value):
            raise ValueError("not a finite number")
        return float(value)

    @staticmethod
    def text(value: object) -> str:
        if type(value) is not str or len(value) > 4096:
            raise ValueError("not a short text")
        return value

    @staticmethod
    def optional(check: Callable[[object], T], value: object) -> T | None:
        return None if value is None else check(value)
