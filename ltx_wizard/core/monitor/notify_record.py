"""Which endings were notified: `logs/notified.json`, so that a watcher started again (a new
`status --watch --notify` after a dropped SSH session, a reopened Monitor) does not ping again;
and what a screen watching a run notifies (PingWatch).

An ending is known by its key (the cause and the launch of the run it ended: notify_ending.py).
Writing is best effort: a read-only run folder still gets its notification, only not remembered;
a damaged record is read as empty and written anew.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import msgspec

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.io import run_folder
from ltx_wizard.core.io.run_codec import declare
from ltx_wizard.core.monitor.notify_ending import Ending, StallWatch, run_ending
from ltx_wizard.core.monitor.status import RunStatus

KEEP = 32  # the latest endings kept: one per launch and cause, a run has a few


class Sent(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    key: str
    cause: str
    step: int | None
    at: str  # UTC, ISO 8601
    text: str


class NotifiedRecord(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    updated: str = ""  # UTC, ISO 8601: the last ending recorded
    sent: tuple[Sent, ...] = ()


NOTIFIED_FILE = declare(run_folder.NOTIFIED, NotifiedRecord)


def sent_before(run_dir: Path, ending: Ending) -> Sent | None:
    record = NOTIFIED_FILE.quietly(run_dir)
    return next((s for s in record.sent if s.key == ending.key), None) if record else None


def claim(run_dir: Path, ending: Ending) -> bool:
    """True when `ending` was not notified yet (it is recorded now, where the folder lets it)."""
    if sent_before(run_dir, ending) is not None:
        return False
    record = NOTIFIED_FILE.quietly(run_dir) or NotifiedRecord()
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    entry = Sent(key=ending.key, cause=ending.cause, step=ending.step, at=now, text=ending.text)
    try:
        NOTIFIED_FILE.write(run_dir, NotifiedRecord(updated=now, sent=(*record.sent, entry)[-KEEP:]))
    except WizardError:
        pass  # not remembered: a later watcher may ping again, which beats no ping now
    return True


class PingWatch:
    """What a screen watching a run notifies: an ending it saw happen (the run was live at an
    earlier refresh; a run already over when the screen opened is only shown) or a stall, each
    once, across watchers too (the record above). `due` runs in the screen's reading thread."""

    def __init__(self, run_dir: Path, stall: StallWatch | None = None) -> None:
        self.run_dir = run_dir
        self.stall = stall or StallWatch()
        self.seen_live = False
        self.hushed = False
        self.sent: set[str] = set()

    def hush(self) -> None:
        """The user stops the run from this screen: its ending needs no ping."""
        self.hushed = True

    def due(self, status: RunStatus) -> Ending | None:
        ending = self.stall.observe(status)
        if status.state == "live":
            self.seen_live = True
        elif self.seen_live:
            ending = None if self.hushed else run_ending(status)
            self.seen_live = self.hushed = False
        if ending is None or ending.key in self.sent:
            return None
        self.sent.add(ending.key)
        return ending if claim(self.run_dir, ending) else None
