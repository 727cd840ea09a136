"""Read `logs/train.log` from where the last read stopped, never the whole file twice.

A multi-GB log must not cost memory or time per refresh: each read takes only the bytes added
since the last one, keeps at most one partial line, and notices when the file was replaced
(another inode: rotated) or shrank (truncated), then starts over from its start. The log is
opened without blocking and checked to be a regular file before a byte is read: a FIFO, a device
or a socket in its place is named and refused (it would block or never end).

A long stretch (the first look, a refresh far behind a fast writer, or the bytes after a saved
cursor) is not parsed line by line: only its last TAIL_BYTES go through the trial parser in full
(the end is where a failure, a config error or the latest steps are); the bytes before are
searched (`HistoryScan`) for what the history needs: step, checkpoint, validation, launch and W&B
lines. Long runs of step lines are read in bulk between the rare lines that split an attempt (launch, resume, the
closing time): step and loss only, checkpoints and validations by their own patterns
(`StepBulk`); the last SLOW_BYTES of the stretch line by line.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from ltx_wizard.core.autotune import log_parser as lp
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.io.bounded import NotRegularFile, open_regular

CHUNK_BYTES = 4 << 20  # one read of a history scan
TAIL_BYTES = 256 << 10  # parsed in full (a multi-rank traceback fits)
MAX_LINE_BYTES = 64 << 10  # a longer line (a progress bar without newlines) is cut here
# What the history needs is found in C over whole chunks (a regular expression alternation, or
# Python per line, costs seconds on a million lines), with words a word wrap at 250 columns never
# splits. Step lines: the trial parser's own pattern, compiled for bytes. Checkpoint, validation
# and resume lines: lowercase `step` (`weights for step`, `samples for step`, `training from
# step`; a step line says `Step`). Launch markers, and in the first START_WINDOW bytes of each
# attempt the W&B URL and the attention backends (both are logged once, at start-up).
STEP_BYTES = re.compile(lp._STEP.pattern.encode())
# trainer.py LtxvTrainer.train logs the loss with {step_loss:.4f}: digits, a dot, digits. A run
# of step lines read in bulk takes only these two groups (the whole pattern costs 4x as much).
STEP_LOSS = re.compile(rb"Step (\d{1,40})/\d{1,40} - Loss: (\d{1,30}\.\d{1,30}),")
SLOW_BYTES = 64 << 10  # the end of a stretch is read line by line (pace, projection, recent)
LINE_WORDS = (b"step", b"launch.sh started", b"Total time:")
RARE_WORDS = (b"launch.sh started", b"Total time:", b"Resuming training from step")
# trainer.py _save_checkpoint: "💾 {Lora|Model} weights for step {step} saved in {path}"; a
# literal first (the parser's "[Ww]eights" makes the engine try every byte: 7x slower)
CHECKPOINT_BYTES = re.compile(rb"eights for step (\d{1,40}) saved in (\S+)")
VALIDATION_BYTES = re.compile(lp._VALIDATION.pattern.encode())
START_WORDS = (b"wandb.ai/", b"attention backends")
START_WINDOW = 256 << 10
CONTINUATION = b" " * 9  # rich's continuation lines start under the message column
FOLD_LINES = 8  # most lines a folded start-up record (the attention backends) is read over
# step, total, loss, seconds, rank, the trainer's projected total seconds (None: calculating)
Step = tuple[int, int, float, float, "int | None", "float | None"]
_PROJECTION = re.compile(rb"(\d{1,12})h (\d{1,12})m")


class LogNotRegular(UsageError):
    """The log's path names a FIFO, a device, a socket or a folder."""


def open_log(path: Path):
    """The log opened for reading (None when absent); refuses what is not a regular file."""
    try:
        return open_regular(path, what="training log")
    except NotRegularFile as exc:
        raise LogNotRegular(f"training log {path} is {exc.kind}, not a log file: the wizard "
                            "reads only regular files; move it away (launch.sh writes a new "
                            "log at the next start)") from None


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


@dataclass
class LogCursor:
    """Where the next read of one log file starts."""

    path: Path
    offset: int = 0
    identity: tuple[int, int] | None = None  # (st_dev, st_ino) of the file read so far
    partial: bytes = b""
    resets: int = field(default=0)  # rotations and truncations seen
    size: int = 0  # the file's size at the last look

    def _check(self, st: os.stat_result) -> bool:
        """True when the file is no longer the one read so far (start over)."""
        ident = (st.st_dev, st.st_ino)
        replaced = self.identity is not None and ident != self.identity
        shrunk = st.st_size < self.offset
        self.identity, self.size = ident, st.st_size
        if replaced or shrunk:
            self.offset, self.partial = 0, b""
            self.resets += 1
            return True
        return False

    def look(self) -> tuple[int, bool]:
        """(the file's size now, whether it was rotated or truncated since the last read)."""
        fh = open_log(self.path)
        if fh is None:
            return 0, False
        with fh:
            reset = self._check(os.fstat(fh.fileno()))
        return self.size, reset

    def read_new(self, limit: int | None = None) -> tuple[list[str], bool]:
        """(complete new lines, whether the file was rotated or truncated since the last read).
        A missing file reads as nothing new."""
        fh = open_log(self.path)
        if fh is None:
            return [], False
        try:
            with fh:
                reset = self._check(os.fstat(fh.fileno()))
                fh.seek(self.offset)
                data = fh.read(limit if limit is not None else max(0, self.size - self.offset))
        except OSError:
            return [], False
        self.offset += len(data)
        return self._split(data), reset

    def _split(self, data: bytes) -> list[str]:
        data = self.partial + data
        cut = data.rfind(b"\n")
        if cut < 0:
            self.partial = data[-MAX_LINE_BYTES:]
            return []
        self.partial = data[cut + 1:][-MAX_LINE_BYTES:]
        return [_decode(raw) for raw in data[:cut].split(b"\n")]

    def skip_to(self, offset: int) -> int:
        """Continue at the start of the first whole line at or after `offset`; returns it."""
        fh = open_log(self.path)
        if fh is None:
            return self.offset
        try:
            with fh:
                self._check(os.fstat(fh.fileno()))
                if offset > 0:
                    fh.seek(offset - 1)
                    head = fh.read(MAX_LINE_BYTES)
                    cut = head.find(b"\n")
                    offset = offset + cut if cut >= 0 else offset - 1 + len(head)
                self.offset, self.partial = max(0, offset), b""
        except OSError:
            pass
        return self.offset


def _decode(raw: bytes) -> str:
    return raw[:MAX_LINE_BYTES].decode("utf-8", "replace")


def _find_all(block: bytes, word: bytes, start: int = 0, stop: int | None = None) -> Iterator[int]:
    stop = len(block) if stop is None else stop
    at = block.find(word, start, stop)
    while at >= 0:
        yield at
        at = block.find(word, at + len(word), stop)


def _continuations(block: bytes, at: int) -> list[int]:
    """Starts of the lines rich folded a record onto after the line holding `at` (they begin
    under its message column): the attention backends line wraps below ~170 columns."""
    found = []
    nxt = block.find(b"\n", at) + 1
    while 0 < nxt < len(block) and block.startswith(CONTINUATION, nxt) and len(found) < FOLD_LINES:
        found.append(nxt)
        nxt = block.find(b"\n", nxt) + 1
    return found


def _number(raw: bytes) -> float:
    try:
        return float(raw)
    except ValueError:
        return math.nan


def _projection(raw: bytes | None) -> float | None:
    """The step line's `Total Time: {h}h {m}m` in seconds; None for `calculating...`."""
    m = _PROJECTION.fullmatch(raw or b"")
    return int(m.group(1)) * 3600.0 + int(m.group(2)) * 60.0 if m else None


def _steps(block: bytes, matches: list[re.Match], ranked: bool) -> list[Step]:
    """The values of a run of step lines; rank prefixes read as the parser reads them, only where
    the run has any (a single-process log has none, and skips the per-line look back)."""
    found = []
    for m in matches:
        rank = None
        if ranked:
            line_start = block.rfind(b"\n", 0, m.start()) + 1
            head = _decode(block[line_start:m.start()])
            found_rank = lp._MSG_RANK.search(head) or lp._TORCH_RANK.match(head)
            rank = int(found_rank.group(1)) if found_rank else None
        found.append((int(m.group(1)), int(m.group(2)), _number(m.group(3)),
                      _number(m.group(5)), rank, _projection(m.group(6))))
    return found


def _run(block: bytes, start: int, stop: int) -> Iterator[list[Step]]:
    """The step lines in [start, stop), line by line."""
    matches = list(STEP_BYTES.finditer(block, start, stop))
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
        if STEP_BYTES.search(line):
            continue  # a step line holding a word: it stays in its run
        yield from _run(block, done, at)
        done = end + 1
        yield _decode(line)
    if done < stop:
        yield from _run(block, done, stop)


def _bulk(block: bytes, start: int, stop: int) -> StepBulk | None:
    """[start, stop) in bulk, when every step line in it has a plain loss (else None: a NaN or
    an odd line is read line by line, as the parser reads it)."""
    found = STEP_LOSS.findall(block, start, stop)
    if len(found) != block.count(b"Step ", start, stop):
        return None
    steps, losses = (list(col) for col in zip(*found)) if found else ([], [])
    marker = max(block.rfind(b"eights for step", start, stop),
                 block.rfind(b"Validation samples for step", start, stop))
    last = _line_of(block, marker, stop) if marker > block.rfind(b"Step ", start, stop) else None
    return StepBulk(steps, losses, CHECKPOINT_BYTES.findall(block, start, stop),
                    VALIDATION_BYTES.findall(block, start, stop), last)


def _line_of(block: bytes, at: int, stop: int) -> str:
    end = block.find(b"\n", at, stop)
    return _decode(block[block.rfind(b"\n", 0, at) + 1:stop if end < 0 else end])


@dataclass
class HistoryScan:
    """What the history needs from a stretch of the log, in order: runs of step lines (values,
    or a StepBulk), any other line as its text. `window_end`: where the start-up window of the
    latest launch marker ends (absolute offset), carried from one chunk or call to the next."""

    path: Path
    window_end: int = START_WINDOW  # the log's start opens a window too

    def scan(self, start: int, end: int) -> Iterator[list[Step] | StepBulk | str]:
        fh = open_log(self.path)
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

    def _hits(self, block: bytes, origin: int,
              slow_from: int) -> Iterator[list[Step] | StepBulk | str]:
        done = 0
        for start in self._rare_starts(block, origin):
            stop = block.find(b"\n", start)
            stop = len(block) if stop < 0 else stop
            line = block[start:stop]
            if STEP_BYTES.search(line):
                continue  # a step line holding a word: it stays in its region
            yield from _region(block, done, start, slow_from)
            done = stop + 1
            yield _decode(line)
        if done < len(block):
            yield from _region(block, done, len(block), slow_from)


def _region(block: bytes, start: int, stop: int,
            slow_from: int) -> Iterator[list[Step] | StepBulk | str]:
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
