"""Read `logs/train.log` from where the last read stopped, never the whole file twice.

A multi-GB log must not cost memory or time per refresh: each read takes only the bytes added
since the last one (bounded per call), keeps at most one partial line, and notices when the file
was replaced (another inode: rotated) or shrank (truncated), then starts over from its start.

The first look at a long log reads its last TAIL_BYTES through the trial parser in full (the end
is where a failure, a config error or the latest steps are) and only searches the bytes before it
for the lines the history needs (step, checkpoint, validation, launch and W&B lines); each line
found is still handed to the same parser (`history_lines`).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from ltx_wizard.core.autotune import log_parser as lp

CHUNK_BYTES = 4 << 20  # one read; a refresh reads at most MAX_READ_BYTES
MAX_READ_BYTES = 16 << 20
TAIL_BYTES = 256 << 10  # parsed in full on the first look (a multi-rank traceback fits)
MAX_LINE_BYTES = 64 << 10  # a longer line (a progress bar without newlines) is cut here
# What the history needs is found in C over whole chunks (a regular expression alternation, or
# Python per line, costs seconds on a million lines), with words a word wrap at 250 columns never
# splits. Step lines: the trial parser's own pattern, compiled for bytes. Checkpoint, validation
# and resume lines: lowercase `step` (`weights for step`, `samples for step`, `training from
# step`; a step line says `Step`). Launch markers, and in the first START_WINDOW bytes of each
# attempt the W&B URL and the attention backends (both are logged once, at start-up).
STEP_BYTES = re.compile(lp._STEP.pattern.encode())
LINE_WORDS = (b"step", b"launch.sh started", b"Total time:")
START_WORDS = (b"wandb.ai/", b"attention backends")
START_WINDOW = 256 << 10
CONTINUATION = b" " * 9  # rich's continuation lines start under the message column
FOLD_LINES = 8  # most lines a folded start-up record (the attention backends) is read over
Step = tuple[int, int, float, float, "int | None"]  # step, total, loss, seconds, rank


@dataclass
class LogCursor:
    """Where the next read of one log file starts."""

    path: Path
    offset: int = 0
    identity: tuple[int, int] | None = None  # (st_dev, st_ino) of the file read so far
    partial: bytes = b""
    resets: int = field(default=0)  # rotations and truncations seen

    def _check(self, st: os.stat_result) -> bool:
        """True when the file is no longer the one read so far (start over)."""
        ident = (st.st_dev, st.st_ino)
        replaced = self.identity is not None and ident != self.identity
        shrunk = st.st_size < self.offset
        self.identity = ident
        if replaced or shrunk:
            self.offset, self.partial = 0, b""
            self.resets += 1
            return True
        return False

    def read_new(self, limit: int = MAX_READ_BYTES) -> tuple[list[str], bool]:
        """(complete new lines, whether the file was rotated or truncated since the last read).
        A missing file reads as nothing new."""
        try:
            with open(self.path, "rb") as fh:
                reset = self._check(os.fstat(fh.fileno()))
                fh.seek(self.offset)
                data = fh.read(limit)
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

    def skip_to(self, offset: int) -> None:
        """Continue at the start of the first whole line at or after `offset`."""
        try:
            with open(self.path, "rb") as fh:
                self._check(os.fstat(fh.fileno()))
                if offset > 0:
                    fh.seek(offset - 1)
                    head = fh.read(MAX_LINE_BYTES)
                    cut = head.find(b"\n")
                    offset = offset + cut if cut >= 0 else offset - 1 + len(head)
                self.offset, self.partial = max(0, offset), b""
        except OSError:
            return


def _decode(raw: bytes) -> str:
    return raw[:MAX_LINE_BYTES].decode("utf-8", "replace")


def file_size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _find_all(block: bytes, word: bytes, start: int = 0, stop: int | None = None) -> Iterator[int]:
    stop = len(block) if stop is None else stop
    at = block.find(word, start, stop)
    while at >= 0:
        yield at
        at = block.find(word, at + len(word), stop)


def _line_starts(block: bytes, first: bool) -> set[int]:
    """Start offsets of the lines of `block` the history reads as text (not step lines)."""
    starts = set()
    windows = [0] if first else []
    for word in LINE_WORDS:
        for at in _find_all(block, word):
            start = block.rfind(b"\n", 0, at) + 1
            starts.add(start)
            if word == b"launch.sh started":
                windows.append(start)
    for origin in windows:
        for word in START_WORDS:
            for at in _find_all(block, word, origin, origin + START_WINDOW):
                starts.add(block.rfind(b"\n", 0, at) + 1)
                starts.update(_continuations(block, at))
    return starts


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


def _steps(block: bytes, matches: list[re.Match], ranked: bool) -> list[Step]:
    """The values of a run of step lines; rank prefixes read as the parser reads them, only where
    the block has any (a single-process log has none, and skips the per-line look back)."""
    if not ranked:
        return [(int(m.group(1)), int(m.group(2)), _number(m.group(3)), float(m.group(5)), None)
                for m in matches]
    found = []
    for m in matches:
        line_start = block.rfind(b"\n", 0, m.start()) + 1
        head = _decode(block[line_start:m.start()])
        rank = lp._MSG_RANK.search(head) or lp._TORCH_RANK.match(head)
        found.append((int(m.group(1)), int(m.group(2)), _number(m.group(3)), float(m.group(5)),
                      int(rank.group(1)) if rank else None))
    return found


def _hits(block: bytes, first: bool) -> Iterator[list[Step] | str]:
    """Everything the history reads in `block`, in order: runs of step lines, other lines."""
    lines = sorted((start, block[start:block.find(b"\n", start)])
                   for start in _line_starts(block, first))
    lines = [(start, line) for start, line in lines if not STEP_BYTES.search(line)]
    matches = list(STEP_BYTES.finditer(block))
    ranked = b"[rank" in block  # looked for once per block
    done = 0
    for start, line in lines:
        upto = done
        while upto < len(matches) and matches[upto].start() < start:
            upto += 1
        if upto > done:
            yield _steps(block, matches[done:upto], ranked)
        done = upto
        yield _decode(line)
    if done < len(matches):
        yield _steps(block, matches[done:], ranked)


def history(path: Path, end: int) -> Iterator[list[Step] | str]:
    """What the history needs before byte `end`, in order: runs of step lines as their values
    (step, total, loss, seconds, rank), any other line as its text."""
    try:
        fh = open(path, "rb")
    except OSError:
        return
    with fh:
        pos, carry = 0, b""
        while pos < end:
            data = fh.read(min(CHUNK_BYTES, end - pos))
            if not data:
                break
            first = pos == 0
            pos += len(data)
            block = carry + data
            cut = block.rfind(b"\n") + 1
            block, carry = block[:cut], block[cut:][-MAX_LINE_BYTES:]
            yield from _hits(block, first)
