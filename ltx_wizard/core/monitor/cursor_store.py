"""Where the last look at a training log stopped, kept beside it, so the next `ltx-wizard status`
(a new process) reads only the bytes added since.

`<log>.status-cursor.json` holds the log's identity (device, inode), the offset the history scan
reached (a line start before the tail), the size and mtime then, a hash of sampled bytes before
that offset (its head, the 4 KB just before it, and 15 windows between), and what the history
had built by then (run_log.RunLog.history_doc: loss points, steps, checkpoints, attempts). It is
used only when all of these still hold: the same file, not shorter, the same sampled bytes (a
log truncated and written again to a larger size, or rewritten in place, is caught here), and at
the same size the same mtime; anything else, or a file the wizard would not have written (the
run folder's codec decodes it strictly, core/io/run_codec.py), means the log is read from its
start. The tail after the offset is always parsed again in full (that is where a failure is).
Writing it is best effort: a read-only run folder or a full disk only costs the next call time.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Annotated, Protocol

import msgspec
from msgspec import Meta

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.io import run_folder
from ltx_wizard.core.io.run_codec import declare
from ltx_wizard.core.monitor.history_doc import Count, HistoryDoc
from ltx_wizard.core.monitor.log_reader import open_log

VERSION = 2  # 2: the check samples the whole log before the offset, and the mtime is kept
CHECK_BYTES = 4096  # hashed per window before the offset
WINDOWS = 16  # windows between the head and the offset: 64 KB read at most
MAX_BYTES = 1 << 20  # a cursor is ~60 KB at most (2,048 loss points)
SUFFIX = run_folder.CURSOR_SUFFIX


class Cursor(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    version: int = VERSION
    identity: tuple[int, int]  # the log's (device, inode)
    offset: Annotated[int, Meta(ge=1, le=2**63 - 1)]  # a line start the history scan reached
    size: Count  # the log's size then
    mtime_ns: Annotated[int, Meta(ge=0)] = 0  # the same size written again in place: a new mtime
    check: str  # sha256 of the sampled windows before the offset (_windows)
    history: HistoryDoc


CURSOR_FILE = declare(run_folder.STATUS_CURSOR, Cursor, version=VERSION)


def cursor_path(log: Path) -> Path:
    return log.with_name(log.name + SUFFIX)


def _windows(offset: int) -> list[tuple[int, int]]:
    """(start, end) of the byte ranges hashed: the log's head (the launch marker, the pid, the
    W&B link), the bytes just before `offset`, and evenly between them, so that a log rewritten
    in place (same file, same tail before the offset) is caught too, for a bounded read."""
    ends = {min(offset, CHECK_BYTES), offset}
    ends |= {
        CHECK_BYTES + (offset - CHECK_BYTES) * k // WINDOWS for k in range(1, WINDOWS) if offset > CHECK_BYTES
    }
    return [(max(0, end - CHECK_BYTES), end) for end in sorted(ends)]


def _check(log: Path, offset: int) -> str | None:
    """A hash of sampled bytes before `offset` (None when they cannot be read)."""
    try:
        fh = open_log(log)
    except WizardError:
        return None
    if fh is None:
        return None
    digest = hashlib.sha256()
    try:
        with fh:
            for start, end in _windows(offset):
                fh.seek(start)
                data = fh.read(end - start)
                if len(data) != end - start:
                    return None
                digest.update(data)
    except OSError:
        return None
    return digest.hexdigest()


class History(Protocol):
    """What the cursor keeps and restores: run_log.RunLog's history (a protocol, so this module
    does not import the one that uses it)."""

    def history_doc(self) -> HistoryDoc: ...

    def restore_history(self, doc: HistoryDoc) -> None: ...


class CursorStore:
    """The cursor of one log; `root` is the run folder it is written under."""

    def __init__(self, log: Path, root: Path) -> None:
        self.log, self.root = Path(log), Path(root)
        self.path = cursor_path(self.log)
        self.loaded_offset = 0

    def load(self, run_log: History, identity: tuple[int, int], size: int) -> int:
        """Restore `run_log`'s history from the cursor; the offset to read on from (0: none)."""
        self.loaded_offset = 0
        try:
            cursor = CURSOR_FILE.read_path(self.path, limit=MAX_BYTES)
        except WizardError:
            return 0
        if (
            cursor is None
            or cursor.offset > size
            or cursor.identity != identity
            or cursor.size > size
            or (cursor.size == size and cursor.mtime_ns != _mtime_ns(self.log))
            or cursor.check != _check(self.log, cursor.offset)
        ):
            return 0
        run_log.restore_history(cursor.history)
        self.loaded_offset = cursor.offset
        return cursor.offset

    def save(self, run_log: History, identity: tuple[int, int], offset: int) -> None:
        """Keep the history up to `offset` (a line start), unless it is where it was loaded."""
        if offset <= self.loaded_offset:
            return
        check = _check(self.log, offset)
        if check is None:
            return
        cursor = Cursor(
            identity=identity,
            offset=offset,
            size=_size(self.log),
            mtime_ns=_mtime_ns(self.log),
            check=check,
            history=run_log.history_doc(),
        )
        try:
            CURSOR_FILE.write_path(self.path, cursor, root=self.root, indent=False)
        except (WizardError, OSError, ValueError):
            return
        self.loaded_offset = offset


def _size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _mtime_ns(path: Path) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0
