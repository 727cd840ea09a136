"""Skim a long stretch of `train.log` for what the run's history needs, without parsing it
line by line: the first look at a long log, a refresh far behind a fast writer, the bytes after
a saved cursor (the monitor parses the log's last bytes in full: core/monitor/run_log.py).

The stretch is split at its rare lines (launch markers, a resume, the trainer's closing time, the
W&B URL and attention backends in the window after a launch). Between them, step lines are read
in bulk (step and loss only) and checkpoints and validations by their own patterns (`StepBulk`),
each pattern run once in C over the whole stretch; where that does not apply (a NaN or an odd
step line) and over the stretch's last SLOW_BYTES (pace, projection, recent losses) it goes line
by line, as the line parser (line_parser.py) reads them.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Callable, Iterator

from ltx_wizard.core.trainer_output import grammar as g
from ltx_wizard.core.trainer_output.grammar import MAX_LINE_BYTES, decode_line

CHUNK_BYTES = 4 << 20  # one read of a history scan
# What the history needs is found in C over whole chunks (a regular expression alternation, or
# Python per line, costs seconds on a million lines), with words a word wrap at 250 columns never
# splits. Step lines: the line parser's own pattern, compiled for bytes (grammar.py). Checkpoint,
# validation and resume lines: lowercase `step` (`weights for step`, `samples for step`,
# `training from step`; a step line says `Step`). Launch markers, and in the first START_WINDOW
# bytes of each attempt the W&B URL and the attention backends (both are logged once, at
# start-up).
SLOW_BYTES = 64 << 10  # the end of a stretch is read line by line (pace, projection, recent)
LINE_WORDS = (b"step", b"launch.sh started", b"Total time:")
RARE_WORDS = (b"launch.sh started", b"Total time:", b"Resuming training from step")
START_WORDS = (b"wandb.ai/", b"attention backends")
START_WINDOW = 256 << 10
FOLD_LINES = 8  # most lines a folded start-up record (the attention backends) is read over
# step, total, loss, seconds, rank, the trainer's projected total seconds (None: calculating)
Step = tuple[int, int, float, float, "int | None", "float | None"]


@dataclass
class StepBulk:
    """A stretch read in bulk: every step line's step and loss, every checkpoint's (step, path),
    every validation's step, as the log spells them; `last` is the stretch's last line when it
    is a checkpoint or validation line (the next step line's time includes it)."""

    steps: list[bytes]
    losses: list[bytes]
    checkpoints: list[tuple[bytes, bytes]] = field(default_factory=list)
    validations: list[bytes] = field(default_factory=list)
    last: str | None = None


def _find_all(block: bytes, word: bytes, start: int = 0, stop: int | None = None) -> Iterator[int]:
    stop = len(block) if stop is None else stop
    at = block.find(word, start, stop)
    while at >= 0:
        yield at
        at = block.find(word, at + len(word), stop)


def _continuations(block: bytes, at: int) -> list[int]:
    """Starts of the lines rich folded a record onto after the line holding `at` (they begin
    under its message column): the attention backends line wraps below ~170 columns."""
    found: list[int] = []
    nxt = block.find(b"\n", at) + 1
    while 0 < nxt < len(block) and block.startswith(g.CONTINUATION, nxt) and len(found) < FOLD_LINES:
        found.append(nxt)
        nxt = block.find(b"\n", nxt) + 1
    return found


def _number(raw: bytes) -> float:
    try:
        return float(raw)
    except ValueError:
        return math.nan


def projection_s(raw: bytes | None) -> float | None:
    """The step line's `Total Time: {h}h {m}m` in seconds; None for `calculating...`."""
    m = g.PROJECTION_BYTES.fullmatch(raw or b"")
    return int(m.group(1)) * 3600.0 + int(m.group(2)) * 60.0 if m else None


def _steps(block: bytes, matches: list[re.Match[bytes]], ranked: bool) -> list[Step]:
    """The values of a run of step lines; rank prefixes read as the parser reads them, only where
    the run has any (a single-process log has none, and skips the per-line look back)."""
    found: list[Step] = []
    for m in matches:
        rank = None
        if ranked:
            line_start = block.rfind(b"\n", 0, m.start()) + 1
            rank = g.line_rank(decode_line(block[line_start : m.start()]))
        found.append(
            (
                int(m.group(1)),
                int(m.group(2)),
                _number(m.group(3)),
                _number(m.group(5)),
                rank,
                projection_s(m.group(6)),
            )
        )
    return found


def _run(block: bytes, start: int, stop: int) -> Iterator[list[Step]]:
    """The step lines in [start, stop), line by line."""
    matches = list(g.STEP_BYTES.finditer(block, start, stop))
    if matches:
        yield _steps(block, matches, block.find(b"[rank", start, stop) >= 0)


def _slow(block: bytes, start: int, stop: int) -> Iterator[list[Step] | str]:
    """[start, stop) line by line: runs of step lines, and every line holding a LINE_WORD
    (checkpoint, validation, resume) as its text."""
    starts = set()
    for word in LINE_WORDS:
        for at in _find_all(block, word, start, stop):
            starts.add(block.rfind(b"\n", 0, at) + 1)
    done = start
    for at in sorted(starts):
        end = block.find(b"\n", at, stop)
        end = stop if end < 0 else end
        line = block[at:end]
        if g.STEP_BYTES.search(line):
            continue  # a step line holding a word: it stays in its run
        yield from _run(block, done, at)
        done = end + 1
        yield decode_line(line)
    if done < stop:
        yield from _run(block, done, stop)


def _bulk(block: bytes, start: int, stop: int) -> StepBulk | None:
    """[start, stop) in bulk, when every step line in it has a plain loss (else None: a NaN or
    an odd line is read line by line, as the parser reads it)."""
    found = g.STEP_LOSS_BYTES.findall(block, start, stop)
    if len(found) != block.count(b"Step ", start, stop):
        return None
    steps, losses = (list(col) for col in zip(*found)) if found else ([], [])
    marker = max(
        block.rfind(b"eights for step", start, stop), block.rfind(b"Validation samples for step", start, stop)
    )
    last = _line_of(block, marker, stop) if marker > block.rfind(b"Step ", start, stop) else None
    return StepBulk(
        steps,
        losses,
        g.CHECKPOINT_BYTES.findall(block, start, stop),
        g.VALIDATION_BYTES.findall(block, start, stop),
        last,
    )


def _line_of(block: bytes, at: int, stop: int) -> str:
    end = block.find(b"\n", at, stop)
    return decode_line(block[block.rfind(b"\n", 0, at) + 1 : stop if end < 0 else end])


@dataclass
class HistoryScan:
    """What the history needs from a stretch of the log, in order: runs of step lines (values,
    or a StepBulk), any other line as its text. `window_end`: where the start-up window of the
    latest launch marker ends (absolute offset), carried from one chunk or call to the next."""

    path: Path
    # opens the log for reading, None when it is absent (the monitor's, which refuses a FIFO)
    opener: Callable[[Path], BinaryIO | None]
    window_end: int = START_WINDOW  # the log's start opens a window too

    def scan(self, start: int, end: int) -> Iterator[list[Step] | StepBulk | str]:
        fh = self.opener(self.path)
        if fh is None:
            return
        with fh:
            fh.seek(start)
            pos, carry = start, b""
            while pos < end:
                data = fh.read(min(CHUNK_BYTES, end - pos))
                if not data:
                    break
                block = carry + data
                origin = pos - len(carry)
                pos += len(data)
                cut = block.rfind(b"\n") + 1
                if pos >= end and cut < len(block):
                    cut = len(block)  # `end` is a line start: the last line is whole
                block, carry = block[:cut], block[cut:][-MAX_LINE_BYTES:]
                yield from self._hits(block, origin, end - SLOW_BYTES - origin)

    def _rare_starts(self, block: bytes, origin: int) -> list[int]:
        """Start offsets of the lines that split the history into regions: launch markers, the
        trainer's closing time, a resume, and the start-up lines (W&B, attention) in the window
        after each launch."""
        starts = set()
        windows = []
        if self.window_end > origin:
            windows.append((0, self.window_end - origin))
        for word in RARE_WORDS:
            for at in _find_all(block, word):
                start = block.rfind(b"\n", 0, at) + 1
                starts.add(start)
                if word == b"launch.sh started":
                    windows.append((start, start + START_WINDOW))
                    self.window_end = max(self.window_end, origin + start + START_WINDOW)
        for first, last in windows:
            for word in START_WORDS:
                for at in _find_all(block, word, first, min(last, len(block))):
                    starts.add(block.rfind(b"\n", 0, at) + 1)
                    starts.update(_continuations(block, at))
        return sorted(starts)

    def _hits(self, block: bytes, origin: int, slow_from: int) -> Iterator[list[Step] | StepBulk | str]:
        done = 0
        for start in self._rare_starts(block, origin):
            stop = block.find(b"\n", start)
            stop = len(block) if stop < 0 else stop
            line = block[start:stop]
            if g.STEP_BYTES.search(line):
                continue  # a step line holding a word: it stays in its region
            yield from _region(block, done, start, slow_from)
            done = stop + 1
            yield decode_line(line)
        if done < len(block):
            yield from _region(block, done, len(block), slow_from)


def _region(block: bytes, start: int, stop: int, slow_from: int) -> Iterator[list[Step] | StepBulk | str]:
    """Between two rare lines: in bulk before `slow_from`, line by line from there (the end of
    the stretch: pace, projection, recent losses), and wherever the bulk does not apply."""
    cut = max(start, min(stop, slow_from))
    if cut > start:
        cut = block.rfind(b"\n", start, cut) + 1 or start  # a line start
    if cut > start:
        bulk = _bulk(block, start, cut)
        if bulk is not None:
            yield bulk
            start = cut
    if start < stop:
        yield from _slow(block, start, stop)
