"""What a training run's log says so far: steps and losses, checkpoints, samples, failures.

Every line of the tail goes through the trainer's line parser (trainer_output/line_parser.py)
and its events through the failure classifier (trainer_output/failure_cause.py), so the monitor
reads the trainer exactly as autotune does; the history before the tail is skimmed with the same
grammar (trainer_output/history_scan.py). On top of those: the launch markers launch.sh writes (each start of the
run is an attempt of its own: its failure is not the next attempt's), the W&B run URL, the
attention backends ltx-core logs, and the log's last lines. Memory stays bounded whatever the
log's size: the loss history is thinned (loss_track.py), the tail and the step-time window are
fixed deques. What the history holds can be kept beside the log (cursor_store.py), so the next
process reads only the bytes added since.
"""

from __future__ import annotations

import math
import re
import time
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING

from ltx_wizard.core.monitor import log_reader
from ltx_wizard.core.monitor.attempt import Attempt, Checkpoint
from ltx_wizard.core.monitor.history_doc import HistoryDoc
from ltx_wizard.core.monitor.log_reader import LogCursor, open_log
from ltx_wizard.core.monitor.loss_track import LossTrack, counted_steps
from ltx_wizard.core.monitor.startup_lines import StartupLines
from ltx_wizard.core.trainer_output import grammar as g
from ltx_wizard.core.trainer_output import history_scan
from ltx_wizard.core.trainer_output.line_events import (
    CheckpointSaved,
    OomError,
    Statistics,
    StepEvent,
    Traceback,
    TrainerEvent,
    ValidationSaved,
)
from ltx_wizard.core.trainer_output.history_scan import HistoryScan, StepBulk, projection_s
from ltx_wizard.core.trainer_output.line_parser import TrainerLogParser

if TYPE_CHECKING:
    from ltx_wizard.core.monitor.cursor_store import CursorStore

TAIL_LINES = 200
STEADY_WINDOW = 10  # recent steady steps the step time is the median of
CATCH_UP_BYTES = 2 * log_reader.TAIL_BYTES  # more new bytes than this: read them as a history
# a refresh skims at most this much of what was added (about a second's read): a writer faster
# than the skim (57 MB/s in issue 43) leaves a gap in the loss history, never a stale step
SKIM_MAX_BYTES = 64 << 20
# core/launch/script.py render_script: `=== <UTC time> launch.sh started, pid <pid>` (digits
# bounded before int(): a 5,000-digit pid is no pid)
_LAUNCH = re.compile(r"^=== (\S+) launch\.sh started, pid (\d{1,20})\b")
# What bash prints when a line of launch.sh fails before the trainer runs (`<path>/launch.sh: line
# 95: exec: uv: not found`, a `cd` to a folder that is gone), and launch.sh's own `fail` lines.
_LAUNCH_ERROR = re.compile(r"launch\.sh: (?:line \d{1,6}: )?(.{1,400})$")


class RunLog:
    """Feed it the log (`refresh`); read the fields."""

    def __init__(self, path: Path, store: CursorStore | None = None) -> None:
        self.path = Path(path)
        self.store = store  # None: nothing kept between processes
        self.cursor = LogCursor(self.path)
        self._reset()

    def _reset(self) -> None:
        self.parser = TrainerLogParser()
        self.loss = LossTrack()
        self.steady: deque[float] = deque(maxlen=STEADY_WINDOW)
        self.step: int | None = None
        self.total: int | None = None
        self.checkpoints: deque[Checkpoint] = deque(maxlen=20)
        self.attempt = Attempt()
        self.attempts = 0
        self.earlier_minutes: list[float | None] = []  # each earlier launch's training time
        self.startup = StartupLines()
        self.tail: deque[str] = deque(maxlen=TAIL_LINES)
        self.lines = 0
        self._busy_step: int | None = None  # a validation/checkpoint step: not steady
        self.scan = HistoryScan(self.path, open_log)

    @property
    def points(self) -> list[tuple[int, float]]:
        return self.loss.points

    @property
    def recent(self) -> deque[tuple[int, float]]:
        return self.loss.recent

    @property
    def wandb_url(self) -> str | None:
        return self.startup.wandb_url

    @property
    def attention(self) -> str | None:
        return self.startup.attention

    @property
    def first_loss(self) -> tuple[int, float] | None:
        return self.loss.first

    # -- reading --------------------------------------------------------------------------

    def refresh(self) -> int:
        """Read what was added since the last call (the first call looks at the whole log);
        returns the number of new lines. Raises log_reader.LogNotRegular for a FIFO & co."""
        if self.cursor.identity is None and self.cursor.offset == 0:
            return self._first_look()
        size, reset = self.cursor.look()
        if reset:  # rotated or truncated: what it said before is gone; read it again
            self.cursor = LogCursor(self.path, resets=self.cursor.resets)
            self._reset()
            return self._first_look()
        if size - self.cursor.offset > CATCH_UP_BYTES:  # a fast writer: skim, then the tail
            for event in self.parser.finish():
                self._event(event, time.time())
            start = self.cursor.offset - len(self.cursor.partial)
            if size - start > SKIM_MAX_BYTES:  # the newest part only: the tail is what is shown
                start = self.cursor.skip_to(size - SKIM_MAX_BYTES)
            return self._look(start, size)
        lines, _ = self.cursor.read_new()
        return self._feed_all(lines)

    def _first_look(self) -> int:
        size, _ = self.cursor.look()
        start = 0
        if self.store is not None and self.cursor.identity is not None:
            start = self.store.load(self, self.cursor.identity, size)
        count = self._look(start, size)
        if self.cursor.identity is None:
            self.cursor.identity = (0, 0)  # no file yet: later reads notice when it appears
        return count

    def _look(self, start: int, size: int) -> int:
        """Skim [start, the tail) as history, then parse the tail in full."""
        count = 0
        tail = max(start, size - log_reader.TAIL_BYTES)
        if tail > start:
            tail = self.cursor.skip_to(tail)
            for hit in self.scan.scan(start, tail):
                count += self._hit(hit)
            self.lines += count
            if self.store is not None and self.cursor.identity is not None:
                self.store.save(self, self.cursor.identity, tail)
            self.parser = TrainerLogParser()  # the tail starts on a fresh record
        else:
            self.cursor.skip_to(start)
        lines, _ = self.cursor.read_new()
        return count + self._feed_all(lines)

    def _hit(self, hit: list[history_scan.Step] | StepBulk | str) -> int:
        if isinstance(hit, str):
            self._history(hit)
            return 1
        if isinstance(hit, StepBulk):
            self._bulk(hit)
            return len(hit.steps) + len(hit.checkpoints) + len(hit.validations)
        for values in hit:
            self._step_at(*values)
        return len(hit)

    def _history(self, line: str) -> None:
        """A line before the tail other than a step line: read with the line parser's own
        patterns (grammar.py: checkpoint, validation) but without its record machinery."""
        self.startup.ends(line)
        if line.startswith("==="):
            m = _LAUNCH.match(line)
            if m:
                self._new_attempt(m.group(1), int(m.group(2)))
            return
        m = g.CHECKPOINT.search(line) if "eights for step" in line else None
        if m:
            self._checkpoint(int(m.group(1)), m.group(2))
            return
        m = g.VALIDATION.search(line) if "Validation samples" in line else None
        if m:
            self._validation(int(m.group(1)))
            return
        m = g.TOTAL_TIME.search(line) if "Total time:" in line else None
        if m:
            self.attempt.minutes = float(m.group(1))
            return
        self._extras(line)

    def _feed_all(self, lines: list[str]) -> int:
        for line in lines:
            self._feed(line)
        return len(lines)

    def finish(self) -> None:
        """The writer is gone: what the parser still holds is final."""
        if self.startup.pending is not None:
            self.startup.done()
        now = time.time()
        for event in self.parser.finish():
            self._event(event, now)

    def _feed(self, line: str) -> None:
        self.lines += 1
        self.tail.append(line.rstrip())
        self.startup.ends(line)
        if line.startswith("==="):
            m = _LAUNCH.match(line)
            if m:
                self._new_attempt(m.group(1), int(m.group(2)))
                # a later skim looks for the start-up lines (W&B, attention) after it
                self.scan.window_end = self.cursor.offset + history_scan.START_WINDOW
                return
        self._extras(line)
        now = time.time()
        for event in self.parser.feed(line, now):
            self._event(event, now)

    def _new_attempt(self, started: str, pid: int) -> None:
        now = time.time()
        for event in self.parser.finish():
            self._event(event, now)
        self.parser = TrainerLogParser()
        if self.attempt.ran():
            self.earlier_minutes.append(self.attempt.minutes)
        self.attempt = Attempt(started=started, pid=pid)
        self.attempts += 1
        self._busy_step = None

    def _extras(self, line: str) -> None:
        if self.startup.line(line):
            return
        if "launch.sh: " in line and self.attempt.last_step < 0:
            m = _LAUNCH_ERROR.search(line.rstrip())
            if m and "was stale" not in line:
                self.attempt.launch_error = m.group(1)
                return
        if "Resuming training from step" in line:
            m = g.RESUMING.search(line)
            if m:
                self.attempt.resumed_from = int(m.group(1))
                # the stopped attempt's steps after the resume step are trained again: its
                # losses there are abandoned, not part of this run's curve
                self.loss.rewind(int(m.group(1)))
        elif 'File "' in line and "validation" in line:
            # a traceback frame inside the validation pass: an OOM there has its own advice
            self.attempt.in_traceback_validation = True

    # -- events ---------------------------------------------------------------------------

    def _event(self, event: TrainerEvent, now: float) -> None:
        attempt = self.attempt
        attempt.cause.feed(event)
        if isinstance(event, StepEvent):
            self._step_at(
                event.step,
                event.total,
                event.loss,
                event.time_per_step_s,
                event.rank,
                projection_s(event.total_time.encode()),
            )
        elif isinstance(event, ValidationSaved):
            self._validation(event.step)
        elif isinstance(event, CheckpointSaved):
            self._checkpoint(event.step, event.path)
        elif isinstance(event, Statistics):
            attempt.statistics = event
            attempt.minutes = event.total_time_min
        elif isinstance(event, OomError):
            attempt.oom_in_validation = attempt.in_traceback_validation
        elif isinstance(event, Traceback):
            attempt.in_traceback_validation = False

    def _validation(self, step: int) -> None:
        if self.attempt.validation_steps[-1:] != [step]:
            self.attempt.validation_steps = (self.attempt.validation_steps + [step])[-20:]
        self._busy_step = step

    def _checkpoint(self, step: int, path: str) -> None:
        if not self.checkpoints or self.checkpoints[-1].step != step:
            self.checkpoints.append(Checkpoint(step, path))
        self._busy_step = step

    def _bulk(self, bulk: StepBulk) -> None:
        """A stretch read in bulk (history_scan.py): its checkpoints and validations, then
        each step once (loss_track.counted_steps)."""
        for step, path in bulk.checkpoints[-(self.checkpoints.maxlen or 20) - 1 :]:
            self._checkpoint(int(step), path.decode("utf-8", "replace"))
        for step in bulk.validations[-20:]:
            self._validation(int(step))
        attempt = self.attempt
        items = counted_steps(bulk.steps, bulk.losses, attempt.last_step)
        self._busy_step = None
        if items:
            self.loss.add_bulk(items)
            attempt.last_step = self.step = items[-1][0]
        if bulk.last is not None:  # a save or a validation after the last step line
            self._history(bulk.last)

    def _step_at(
        self,
        step: int,
        total: int,
        loss: float,
        secs: float,
        rank: int | None,
        projection: float | None = None,
    ) -> None:
        attempt = self.attempt
        if step == 0:
            # trainer.py LtxvTrainer.train logs on micro-steps where global_step % 20 == 0: with
            # gradient accumulation that includes "Step 0/N" before any optimizer step
            return
        if step <= attempt.last_step:
            return  # another rank's (or another node's `[rank 0]`) line for the same step
        attempt.last_step = step
        self.step, self.total = step, total
        if projection is not None:
            attempt.projection = (step, projection)
        busy = self._busy_step == step
        self._busy_step = None
        # trainer.py train(): Time/Step spans the whole optimizer step, a validation pass or a
        # checkpoint save at that step included: only other steps measure the steady pace.
        if not busy and math.isfinite(secs):
            self.steady.append(secs)
        if math.isnan(loss) and attempt.nan_step is None:
            attempt.nan_step = step
        self.loss.add(step, loss)

    # -- kept between processes (cursor_store.py) -----------------------------------------

    def history_doc(self) -> HistoryDoc:
        """What the history scan has built, as a typed value (nothing of the tail's parse)."""
        return HistoryDoc(
            loss=self.loss.to_doc(),
            steady=list(self.steady),
            step=self.step,
            total=self.total,
            checkpoints=[(c.step, c.path) for c in self.checkpoints],
            attempt=self.attempt.to_doc(),
            attempts=self.attempts,
            earlier_minutes=list(self.earlier_minutes),
            startup=self.startup.to_doc(),
            lines=self.lines,
            busy_step=self._busy_step,
            window_end=self.scan.window_end,
        )

    def restore_history(self, doc: HistoryDoc) -> None:
        """The state `history_doc` kept (the codec checked every value as it read the cursor)."""
        self._reset()
        self.loss = LossTrack.from_doc(doc.loss)
        self.attempt = Attempt.from_doc(doc.attempt)
        self.startup = StartupLines.from_doc(doc.startup)
        self.steady.extend(doc.steady[-STEADY_WINDOW:])
        self.checkpoints.extend(Checkpoint(s, p) for s, p in doc.checkpoints[-20:])
        self.step, self.total, self.attempts = doc.step, doc.total, doc.attempts
        self.earlier_minutes = list(doc.earlier_minutes[-100:])
        self.lines, self._busy_step, self.scan.window_end = doc.lines, doc.busy_step, doc.window_end
