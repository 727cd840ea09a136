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

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

CHUNK_BYTES = 4 << 20  # one read; a refresh reads at most MAX_READ_BYTES
MAX_READ_BYTES = 16 << 20
TAIL_BYTES = 1 << 20  # parsed in full on the first look
MAX_LINE_BYTES = 64 << 10  # a longer line (a progress bar without newlines) is cut here
# What the history needs. Found with bytes.find over whole chunks (C speed; a regular expression
# alternation, or Python per line, costs seconds on a million lines); words a word wrap never
# splits at 250 columns. `tep ` is in every line the history reads a step from: `Step 20/`,
# `weights for step 20`, `samples for step 20`, `training from step 20` (and not in `Time/Step:`).
HISTORY_WORDS = (b"tep ", b"launch.sh started", b"wandb.ai/", b"attention backends")


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


def _line_starts(block: bytes) -> list[int]:
    """Start offsets of the lines of `block` that hold a history word, ascending, unique."""
    starts = set()
    for word in HISTORY_WORDS:
        at = block.find(word)
        while at >= 0:
            starts.add(block.rfind(b"\n", 0, at) + 1)
            at = block.find(word, at + len(word))
    return sorted(starts)


def history_lines(path: Path, end: int) -> Iterator[str]:
    """The whole lines before byte `end` that hold something the history needs, in order."""
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
            pos += len(data)
            block = carry + data
            cut = block.rfind(b"\n") + 1
            block, carry = block[:cut], block[cut:][-MAX_LINE_BYTES:]
            for start in _line_starts(block):
                yield _decode(block[start:block.find(b"\n", start)])
