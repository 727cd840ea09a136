"""Read `logs/train.log` from where the last read stopped, never the whole file twice.

A multi-GB log must not cost memory or time per refresh: each read takes only the bytes added
since the last one, keeps at most one partial line, and notices when the file was replaced
(another inode: rotated) or shrank (truncated), then starts over from its start. The log is
opened without blocking and checked to be a regular file before a byte is read: a FIFO, a device
or a socket in its place is named and refused (it would block or never end). A long stretch is
skimmed by trainer_output/history_scan.py; only the last TAIL_BYTES go through the line parser
in full.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.io.bounded import NotRegularFile, open_regular
from ltx_wizard.core.trainer_output.grammar import MAX_LINE_BYTES, decode_line

TAIL_BYTES = 256 << 10  # parsed in full (a multi-rank traceback fits)


class LogNotRegular(UsageError):
    """The log's path names a FIFO, a device, a socket or a folder."""


def open_log(path: Path) -> BinaryIO | None:
    """The log opened for reading (None when absent); refuses what is not a regular file."""
    try:
        return open_regular(path, what="training log")
    except NotRegularFile as exc:
        raise LogNotRegular(
            f"training log {path} is {exc.kind}, not a log file: the wizard "
            "reads only regular files; move it away (launch.sh writes a new "
            "log at the next start)"
        ) from None


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
        self.partial = data[cut + 1 :][-MAX_LINE_BYTES:]
        return [decode_line(raw) for raw in data[:cut].split(b"\n")]

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
