"""What a training run's log says so far: steps and losses, checkpoints, samples, failures.

Every line goes through the trial parser (autotune/log_parser.py) and its events through the
trial failure classifier (autotune/failure_cause.py), so the monitor reads the trainer exactly as
autotune does. On top of those: the launch markers launch.sh writes (each start of the run is an
attempt of its own: its failure is not the next attempt's), the W&B run URL, the attention
backends ltx-core logs, and the log's last lines. Memory stays bounded whatever the log's size:
the loss history is thinned to MAX_POINTS, the tail and the step-time window are fixed deques.
"""

from __future__ import annotations

import math
import re
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from ltx_wizard.core.autotune import log_parser as lp
from ltx_wizard.core.autotune.failure_cause import FailureCause
from ltx_wizard.core.monitor import log_reader
from ltx_wizard.core.monitor.log_reader import LogCursor, TAIL_BYTES, file_size, history

MAX_POINTS = 2048  # loss points kept for the plot (thinned evenly beyond that)
TAIL_LINES = 200
STEADY_WINDOW = 10  # recent steady steps the step time is the median of
# launch_script.render_script: `=== <UTC time> launch.sh started, pid <pid>`
_LAUNCH = re.compile(r"^=== (\S+) launch\.sh started, pid (\d+)")
# wandb prints `wandb: 🚀 View run <name> at: https://wandb.ai/<entity>/<project>/runs/<id>`
_WANDB = re.compile(r"(https://wandb\.ai/\S+/runs/[\w-]+)")
# ltx_core/model/transformer/model.py LTXModel.__init__:
# "Building transformer with attention backends -- self: %s, masked: %s". Rich folds it over
# several lines below ~170 columns, mid-word too ("...>MA" / "TH]"): the lines are joined with
# nothing between them (the backend names hold no spaces), so every space here is optional.
_ATTENTION = re.compile(r"attention\s*backends\s*--\s*self:\s*(\S+?),?\s*masked:\s*(\S+)")
_SOURCE = re.compile(r"\s+[\w.-]+\.py:\d+\s*$")  # rich's source column on a record's first line
CONTINUATION = log_reader.CONTINUATION.decode()
# trainer.py LtxvTrainer._log_training_stats: " - Total time: {minutes:.1f} minutes"
_TOTAL_TIME = re.compile(r"- Total time: ([\d.]+) minutes")
# ltx_trainer/trainer.py LtxvTrainer.train: "🚀 Resuming training from step {initial} → {steps}"
_RESUMING = re.compile(r"Resuming training from step (\d+)")


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
    statistics: lp.Statistics | None = None
    minutes: float | None = None  # the trainer's "Total time" (also read from the history)
    in_traceback_validation: bool = False

    def ran(self) -> bool:
        return self.started is not None or self.last_step >= 0 or self.minutes is not None


@dataclass(frozen=True)
class Checkpoint:
    step: int
    path: str  # as the trainer logged it (relative to output_dir)


class RunLog:
    """Feed it the log (`refresh`); read the fields."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.cursor = LogCursor(self.path)
        self._reset()

    def _reset(self) -> None:
        self.parser = lp.TrainerLogParser()
        self.points: list[tuple[int, float]] = []  # (step, loss) over the whole run, thinned
        self._stride, self._skipped = 1, 0
        self.first_loss: tuple[int, float] | None = None
        self.recent: deque[tuple[int, float]] = deque(maxlen=5)
        self.steady: deque[float] = deque(maxlen=STEADY_WINDOW)
        self.step: int | None = None
        self.total: int | None = None
        self.checkpoints: deque[Checkpoint] = deque(maxlen=20)
        self.attempt = Attempt()
        self.attempts = 0
        self.earlier_minutes: list[float | None] = []  # each earlier launch's training time
        self.wandb_url: str | None = None
        self.attention: str | None = None
        self._attention_lines: list[str] | None = None  # its record, until the next one starts
        self.tail: deque[str] = deque(maxlen=TAIL_LINES)
        self.lines = 0
        self._busy_step: int | None = None  # a validation/checkpoint step: not steady

    # -- reading --------------------------------------------------------------------------

    def refresh(self) -> int:
        """Read what was added since the last call (the first call looks at the whole log);
        returns the number of new lines."""
        if self.cursor.identity is None and self.cursor.offset == 0:
            return self._first_look()
        lines, reset = self.cursor.read_new()
        if reset:  # rotated or truncated: what it said before is gone; read it again
            resets = self.cursor.resets
            self.cursor = LogCursor(self.path, resets=resets)
            self._reset()
            return self._first_look()
        return self._feed_all(lines)

    def _first_look(self) -> int:
        size = file_size(self.path)
        start = max(0, size - TAIL_BYTES)
        count = 0
        if start > 0:
            for hit in history(self.path, start):
                if isinstance(hit, str):
                    self._history(hit)
                    count += 1
                else:
                    for values in hit:
                        self._step_at(*values)
                    count += len(hit)
            self.lines += count
            self.parser = lp.TrainerLogParser()  # the tail starts on a fresh record
            self.cursor.skip_to(start)
        lines, _ = self.cursor.read_new()
        if self.cursor.identity is None:
            self.cursor.identity = (0, 0)  # no file yet: later reads notice when it appears
        return count + self._feed_all(lines)

    def _history(self, line: str) -> None:
        """A line before the tail other than a step line: read with the trial parser's own
        patterns (checkpoint, validation) but without its record machinery."""
        self._attention_ends(line)
        if line.startswith("==="):
            m = _LAUNCH.match(line)
            if m:
                self._new_attempt(m.group(1), int(m.group(2)))
            return
        m = lp._CHECKPOINT.search(line) if "eights for step" in line else None
        if m:
            self._checkpoint(int(m.group(1)), m.group(2))
            return
        m = lp._VALIDATION.search(line) if "Validation samples" in line else None
        if m:
            self._validation(int(m.group(1)))
            return
        m = _TOTAL_TIME.search(line) if "Total time:" in line else None
        if m:
            self.attempt.minutes = float(m.group(1))
            return
        self._extras(line)

    def _feed_all(self, lines: list[str]) -> int:
        for line in lines:
            self._feed(line)
        return len(lines)

    def _attention_done(self) -> None:
        m = _ATTENTION.search("".join(self._attention_lines or ()))
        self._attention_lines = None
        if m:
            self.attention = f"self: {m.group(1)}, masked: {m.group(2)}"

    def finish(self) -> None:
        """The writer is gone: what the parser still holds is final."""
        if self._attention_lines is not None:
            self._attention_done()
        now = time.time()
        for event in self.parser.finish():
            self._event(event, now)

    def _feed(self, line: str, history: bool = False) -> int:
        self.lines += 1
        if not history:
            self.tail.append(line.rstrip())
        self._attention_ends(line)
        if line.startswith("==="):
            m = _LAUNCH.match(line)
            if m:
                self._new_attempt(m.group(1), int(m.group(2)))
                return 1
        self._extras(line)
        now = time.time()
        for event in self.parser.feed(line, now):
            self._event(event, now)
        return 1

    def _new_attempt(self, started: str, pid: int) -> None:
        now = time.time()
        for event in self.parser.finish():
            self._event(event, now)
        self.parser = lp.TrainerLogParser()
        if self.attempt.ran():
            self.earlier_minutes.append(self.attempt.minutes)
        self.attempt = Attempt(started=started, pid=pid)
        self.attempts += 1
        self._busy_step = None

    def _attention_ends(self, line: str) -> None:
        """Any line but a continuation ends the attention record being gathered."""
        if self._attention_lines is not None and not line.startswith(CONTINUATION):
            self._attention_done()

    def _extras(self, line: str) -> None:
        pending = self._attention_lines
        if pending is not None and line.startswith(CONTINUATION):
            if len(pending) < log_reader.FOLD_LINES:
                pending.append(line.strip())
            else:
                self._attention_done()
            return
        if "wandb.ai/" in line:
            m = _WANDB.search(line)
            if m:
                self.wandb_url = m.group(1)
        elif "attention backends" in line:
            self._attention_lines = [_SOURCE.sub("", line).strip()]
        elif "Resuming training from step" in line:
            m = _RESUMING.search(line)
            if m:
                self.attempt.resumed_from = int(m.group(1))
        elif 'File "' in line and "validation" in line:
            # a traceback frame inside the validation pass: an OOM there has its own advice
            self.attempt.in_traceback_validation = True

    # -- events ---------------------------------------------------------------------------

    def _event(self, event: lp.TrainerEvent, now: float) -> None:
        attempt = self.attempt
        attempt.cause.feed(event)
        if isinstance(event, lp.StepEvent):
            self._step_at(event.step, event.total, event.loss, event.time_per_step_s, event.rank)
        elif isinstance(event, lp.ValidationSaved):
            self._validation(event.step)
        elif isinstance(event, lp.CheckpointSaved):
            self._checkpoint(event.step, event.path)
        elif isinstance(event, lp.Statistics):
            attempt.statistics = event
            attempt.minutes = event.total_time_min
        elif isinstance(event, lp.OomError):
            attempt.oom_in_validation = attempt.in_traceback_validation
        elif isinstance(event, lp.Traceback):
            attempt.in_traceback_validation = False

    def _validation(self, step: int) -> None:
        self.attempt.validation_steps = (self.attempt.validation_steps + [step])[-20:]
        self._busy_step = step

    def _checkpoint(self, step: int, path: str) -> None:
        if not self.checkpoints or self.checkpoints[-1].step != step:
            self.checkpoints.append(Checkpoint(step, path))
        self._busy_step = step

    def _step_at(self, step: int, total: int, loss: float, secs: float, rank: int | None) -> None:
        attempt = self.attempt
        if step == 0:
            # trainer.py LtxvTrainer.train logs on micro-steps where global_step % 20 == 0: with
            # gradient accumulation that includes "Step 0/N" before any optimizer step
            return
        if step <= attempt.last_step:
            return  # another rank's (or another node's `[rank 0]`) line for the same step
        attempt.last_step = step
        self.step, self.total = step, total
        busy = self._busy_step == step
        self._busy_step = None
        # trainer.py train(): Time/Step spans the whole optimizer step, a validation pass or a
        # checkpoint save at that step included: only other steps measure the steady pace.
        if not busy and step > 0 and math.isfinite(secs):
            self.steady.append(secs)
        if math.isnan(loss):  # the parser's NanLoss says so in the tail; here, the pattern
            if attempt.nan_step is None:
                attempt.nan_step = step
            return
        if self.first_loss is None:
            self.first_loss = (step, loss)
        self.recent.append((step, loss))
        self._add_point(step, loss)

    def _add_point(self, step: int, loss: float) -> None:
        self._skipped += 1
        if self._skipped < self._stride:
            return
        self._skipped = 0
        self.points.append((step, loss))
        if len(self.points) >= MAX_POINTS:  # thin evenly: every other point, half as often
            self.points = self.points[::2]
            self._stride *= 2
