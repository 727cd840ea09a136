"""How a training run (or autotune) ended, decided once from the run's records, and the one line a
desktop notification says about it.

The causes: done, failed-oom, failed-nan, crashed, stopped (the trainer exited with no error and no
closing statistics: stopped by hand, or killed by the system), stalled (the trainer is alive but
wrote no step line and no other log line for STALL_INTERVALS step-line intervals), and
autotune-finished. Each has its own exit code for `ltx-wizard status RUN --watch --notify`.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Literal

from ltx_wizard.core.base.text_safety import clean_text, clip
from ltx_wizard.core.monitor.status import RunStatus
from ltx_wizard.core.tuning.results import AutotuneSummary

Cause = Literal["done", "failed-oom", "failed-nan", "crashed", "stopped", "stalled", "autotune-finished"]
# `status --watch --notify` exits with these (1 and 2 stay the wizard's failure and bad input)
EXIT_CODES: dict[str, int] = {
    "done": 0,
    "failed-oom": 3,
    "failed-nan": 4,
    "crashed": 5,
    "stalled": 6,
    "stopped": 7,
    "autotune-finished": 0,
}
# trainer.py LtxvTrainer.train with --disable-progress-bars logs a step line on every 20th step
STEP_LINE_EVERY = 20
# A checkpoint save or a validation pass between two step lines holds the next one back (each is
# a pause of one to a few step-line intervals on the trainer team's configs); five intervals with
# no step line and no other log line at all is past what they take: the trainer is stuck.
STALL_INTERVALS = 5


@dataclass(frozen=True)
class Ending:
    cause: Cause
    run: str  # the run folder's name
    step: int | None
    loss: float | None  # the last finite loss, where known
    text: str  # one line, shown and sent
    key: str  # the cause and the launch it ended: sent once per key

    def as_json(self) -> dict[str, object]:
        """What `--notify-url` POSTs."""
        return {"run": self.run, "cause": self.cause, "step": self.step, "loss": self.loss, "text": self.text}


def _at(step: int | None) -> str:
    return f"at step {step:,}" if step is not None else "before its first step line"


def _loss(status: RunStatus) -> float | None:
    if status.nan:
        return status.last_finite[1] if status.last_finite else None
    last = status.recent_losses[-1] if status.recent_losses else None
    return last if last is not None and math.isfinite(last) else None


def _loss_text(loss: float | None) -> str:
    return f", last loss {loss:.4f}" if loss is not None else ""


def _cause(status: RunStatus) -> Cause | None:
    """The cause of an ended run (None while it runs, or before it started)."""
    if status.state in ("live", "not started"):
        return None
    kind = status.diagnosis.kind if status.diagnosis is not None else None
    if kind in ("oom", "oom_validation"):
        return "failed-oom"
    if status.nan:  # trainer.py trains on after a NaN loss: finished or not, the run is lost
        return "failed-nan"
    if status.state == "finished":
        return "done"
    return "crashed" if status.state == "failed" else "stopped"


def _text(cause: Cause, status: RunStatus, run: str, loss: float | None) -> str:
    at, tail = _at(status.step), _loss_text(loss)
    d = status.diagnosis
    if cause == "done":
        total = f" of {status.total:,}" if status.total else ""
        return f"{run}: training done {at}{total}{tail}"
    if cause == "failed-oom":
        where = "in a validation pass" if d is not None and d.kind == "oom_validation" else "in training"
        return f"{run}: failed, out of GPU memory {where} {at}{tail}"
    if cause == "failed-nan":
        ended = "finished" if status.state == "finished" else "ended"
        return (
            f"{run}: failed, the loss is NaN from step {status.nan_step:,} (the trainer {ended} {at}){tail}"
        )
    if cause == "crashed":
        why = f" ({d.kind}): {clip(clean_text(d.cause).strip(), 90)}" if d is not None else ""
        return f"{run}: the trainer crashed {at}{why}"
    if cause == "stopped":
        return f"{run}: training stopped {at} with no error in its log (stopped, or killed){tail}"
    per = f", ~{status.s_per_step:.1f} s/step" if status.s_per_step else ""
    return f"{run}: stalled {at}: no step line for {STALL_INTERVALS} step-line intervals{per}{tail}"


def _ending(cause: Cause, status: RunStatus) -> Ending:
    run = clean_text(status.run_dir.name)
    loss = _loss(status)
    return Ending(
        cause, run, status.step, loss, _text(cause, status, run, loss), f"{cause}@{status.attempt_id}"
    )


def run_ending(status: RunStatus) -> Ending | None:
    """How the run's latest launch ended, from its status (None: it has not ended)."""
    cause = _cause(status)
    return None if cause is None else _ending(cause, status)


def _mtime(path: Path) -> float | None:
    try:
        return path.stat().st_mtime
    except OSError:
        return None


class StallWatch:
    """A live run whose step does not move and whose log is not written for STALL_INTERVALS
    step-line intervals of its measured pace: stalled. Quiet since the later of the step's change
    (as seen here; on the first look, the log's last write: a restarted watcher counts from it too)
    and the log's last write."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self.step: int | None = None
        self.seen: float | None = None  # when this step was first seen

    def limit_s(self, status: RunStatus) -> float | None:
        if not status.s_per_step:
            return None
        return STALL_INTERVALS * STEP_LINE_EVERY * status.s_per_step

    def observe(self, status: RunStatus) -> Ending | None:
        now = self.clock()
        if status.state != "live":
            self.step = self.seen = None
            return None
        written = _mtime(status.log)
        if self.seen is None:  # first look: the step was last seen moving at the log's last write
            self.step, self.seen = status.step, min(now, written or now)
        elif status.step != self.step:
            self.step, self.seen = status.step, now
        limit = self.limit_s(status)
        quiet_since = max(self.seen, written or self.seen)
        if limit is None or status.step is None or now - quiet_since <= limit:
            return None
        return _ending("stalled", status)


def autotune_ending(run_dir: Path, summary: AutotuneSummary | None, error: str | None) -> Ending:
    """Autotune's end: its winner, the reason it found none, or the error that stopped it."""
    run = clean_text(run_dir.name)
    winner = None if summary is None or summary.winner is None else summary.winner
    if winner is not None and summary is not None:
        trial = next((t for t in summary.trials if t.index == winner), None)
        pace = f", {trial.step_time_s:.2f} s/step" if trial and trial.step_time_s else ""
        text = f"{run}: autotune finished, trial {winner} wins{pace}"
    elif error is not None:
        text = f"{run}: autotune stopped: {clip(clean_text(error), 100)}"
    else:
        why = (
            clip(clean_text(summary.stop_reason), 100) if summary and summary.stop_reason else "no trial fit"
        )
        text = f"{run}: autotune finished without a winner: {why}"
    return Ending("autotune-finished", run, None, None, text, f"autotune-finished@{text}")
