"""Where the last look at a training log stopped, kept beside it, so the next `ltx-wizard status`
(a new process) reads only the bytes added since.

`<log>.status-cursor.json` holds the log's identity (device, inode), the offset the history scan
reached (a line start before the tail), the size and mtime then, a hash of sampled bytes before
that offset (its head, the 4 KB just before it, and 15 windows between), and what the history
had built by then (run_log.RunLog.history_json: loss points, steps, checkpoints, attempts). It is
used only when all of these still hold: the same file, not shorter, the same sampled bytes (a
log truncated and written again to a larger size, or rewritten in place, is caught here), and at
the same size the same mtime; anything else, or a file the wizard would not have written, means
the log is read from its start. The tail after the offset is always parsed again in full (that
is where a failure is).
Writing it is best effort: a read-only run folder or a full disk only costs the next call time.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Protocol

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.io.bounded import loads_json, read_bytes
from ltx_wizard.core.io.safe_fs import write_text
from ltx_wizard.core.monitor.log_reader import open_log

VERSION = 2  # 2: the check samples the whole log before the offset, and the mtime is kept
CHECK_BYTES = 4096  # hashed per window before the offset
WINDOWS = 16  # windows between the head and the offset: 64 KB read at most
MAX_BYTES = 1 << 20  # a cursor is ~60 KB at most (2,048 loss points)
SUFFIX = ".status-cursor.json"


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

    def history_json(self) -> dict[str, Any]: ...

    def restore_history(self, doc: dict[str, Any]) -> None: ...


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
            doc = loads_json(
                read_bytes(self.path, what="status cursor", limit=MAX_BYTES), what="status cursor"
            )
            if not isinstance(doc, dict) or doc.get("version") != VERSION:
                return 0
            offset = doc["offset"]
            if (
                type(offset) is not int
                or not 0 < offset <= size
                or doc["identity"] != list(identity)
                or type(doc["size"]) is not int
                or doc["size"] > size
                or (doc["size"] == size and doc.get("mtime_ns") != _mtime_ns(self.log))
                or doc["check"] != _check(self.log, offset)
            ):
                return 0
            run_log.restore_history(doc["history"])
        except (WizardError, ValueError, TypeError, KeyError, IndexError, AttributeError):
            return 0
        self.loaded_offset = offset
        return offset

    def save(self, run_log: History, identity: tuple[int, int], offset: int) -> None:
        """Keep the history up to `offset` (a line start), unless it is where it was loaded."""
        if offset <= self.loaded_offset:
            return
        check = _check(self.log, offset)
        if check is None:
            return
        doc = {
            "version": VERSION,
            "identity": list(identity),
            "offset": offset,
            "size": _size(self.log),
            "mtime_ns": _mtime_ns(self.log),  # the same size written again in place: a new mtime
            "check": check,
            "history": run_log.history_json(),
        }
        try:
            write_text(self.path, json.dumps(doc, separators=(",", ":")), root=self.root)
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
