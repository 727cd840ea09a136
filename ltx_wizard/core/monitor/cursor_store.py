"""Where the last look at a training log stopped, kept beside it, so the next `ltx-wizard status`
(a new process) reads only the bytes added since.

`<log>.status-cursor.json` holds the log's identity (device, inode), the offset the history scan
reached (a line start before the tail), the size then, a hash of the bytes just before that
offset, and what the history had built by then (run_log.RunLog.history_doc: loss points, steps,
checkpoints, attempts). It is used only when all of these still hold: the same file, not shorter,
the same bytes before the offset (a log truncated and written again to a larger size is caught
here); anything else, or a file the wizard would not have written (the run folder's codec decodes
it strictly, core/io/run_codec.py), means the log is read from its start. The tail after the offset is always parsed again in full (that is where a failure is).
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

VERSION = 1
CHECK_BYTES = 4096  # hashed before the offset
MAX_BYTES = 1 << 20  # a cursor is ~60 KB at most (2,048 loss points)
SUFFIX = run_folder.CURSOR_SUFFIX


class Cursor(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    version: int = VERSION
    identity: tuple[int, int]  # the log's (device, inode)
    offset: Annotated[int, Meta(ge=1, le=2**63 - 1)]  # a line start the history scan reached
    size: Count  # the log's size then
    check: str  # sha256 of the CHECK_BYTES before the offset
    history: HistoryDoc


CURSOR_FILE = declare(run_folder.STATUS_CURSOR, Cursor, version=VERSION)


def cursor_path(log: Path) -> Path:
    return log.with_name(log.name + SUFFIX)


def _check(log: Path, offset: int) -> str | None:
    """A hash of the bytes before `offset` (None when they cannot be read)."""
    try:
        fh = open_log(log)
    except WizardError:
        return None
    if fh is None:
        return None
    try:
        with fh:
            start = max(0, offset - CHECK_BYTES)
            fh.seek(start)
            data = fh.read(offset - start)
    except OSError:
        return None
    return hashlib.sha256(data).hexdigest() if len(data) == offset - start else None


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
            identity=identity, offset=offset, size=_size(self.log), check=check, history=run_log.history_doc()
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
