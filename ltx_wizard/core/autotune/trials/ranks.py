"""Every process a trial started, ranks that left its process group included.

torchrun (what `accelerate launch` runs) starts each rank with `start_new_session=True`: a rank
has its own session and process group, so a signal to the trial's group never reaches it, and once
the launcher is gone the rank is re-parented and no longer looks like the trial's. So the trial's
tree is walked while it runs and every process seen in it is remembered, by pid and start time
(a pid the kernel has since given to a stranger is never signalled).
"""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from typing import Callable

from ltx_wizard.core.io.processes import Proc, proc_rows


class RankTracker:
    """The processes of the trial whose group (and leader pid) is `pgid`.

    `refresh()` while the trial runs (from a thread too); `alive()` and `signal_all()` when
    taking it down.
    """

    def __init__(self, pgid: int, read_rows: Callable[[], list[Proc]] = proc_rows) -> None:
        self.pgid = pgid
        self.read_rows = read_rows
        self.known: dict[int, int] = {}  # pid -> start time, of every process seen in the tree
        self._lock = threading.Lock()  # the periodic walk runs in a thread, take-down on the loop

    def refresh(self, rows: list[Proc] | None = None) -> list[Proc]:
        """Remember every process now in the group or below one already known; returns the rows.

        Known processes that have ended are forgotten, so the record stays as small as the tree.
        """
        with self._lock:
            rows = self.read_rows() if rows is None else rows
            self.known = self._walk(rows)
        return rows

    def _walk(self, rows: list[Proc]) -> dict[int, int]:
        children: dict[int, list[Proc]] = {}
        for row in rows:
            children.setdefault(row.ppid, []).append(row)
        found: dict[int, int] = {}
        todo = [row for row in rows if row.pgrp == self.pgid or self._is_known(row)]
        while todo:
            row = todo.pop()
            if row.pid not in found:
                found[row.pid] = row.start
                todo.extend(children.get(row.pid, ()))
        return found

    def _is_known(self, row: Proc) -> bool:
        return self.known.get(row.pid) == row.start

    def survivors(self, rows: list[Proc] | None = None) -> list[Proc]:
        """The trial's processes still alive: its group, and every known process outside it."""
        rows = self.read_rows() if rows is None else rows
        return [row for row in rows if row.pgrp == self.pgid or self._is_known(row)]

    def alive(self) -> bool:
        """Anything of the trial left (walks the tree first, so new children count too)."""
        if not os.path.isdir("/proc/self"):  # no /proc (macOS): the kernel's word on the group
            return _signal_group(self.pgid, 0)
        return bool(self.survivors(self.refresh()))

    def group_alive(self) -> bool:
        """The launcher's own process group still has a live member."""
        if not os.path.isdir("/proc/self"):
            return _signal_group(self.pgid, 0)
        return any(row.pgrp == self.pgid for row in self.read_rows())

    def signal_all(self, sig: int, *, escaped_too: bool = True) -> None:
        """`sig` to the group and, with escaped_too, to every known survivor outside it."""
        _signal_group(self.pgid, sig)
        if escaped_too:
            self.signal_escaped(sig)

    def signal_escaped(self, sig: int) -> None:
        for row in self.survivors():
            if row.pgrp != self.pgid:  # the group itself is signalled as a whole
                try:
                    os.kill(row.pid, sig)
                except (ProcessLookupError, PermissionError):
                    pass


def _signal_group(pgid: int, sig: int) -> bool:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True


# Once the launcher's whole group is gone its teardown is over: what it left behind gets SIGTERM
# from us and this long to end before SIGKILL (nobody else would ever stop it).
ORPHAN_GRACE_S = 5.0


async def take_down(
    tracker: RankTracker,
    *,
    launcher_gone: bool,
    grace_s: float,
    kill_wait_s: float,
    poll_s: float,
    orphan_grace_s: float = ORPHAN_GRACE_S,
) -> None:
    """SIGTERM the launcher's group and give it `grace_s` to stop its ranks; survivors of a
    launcher that has ended get SIGTERM themselves and `orphan_grace_s`; then SIGKILL every
    survivor, in the group or not, until none is left (or `kill_wait_s` has passed)."""
    if not tracker.alive():
        return
    tracker.signal_all(signal.SIGTERM, escaped_too=False)
    deadline = time.monotonic() + grace_s
    orphans_told = False
    while tracker.alive():
        now = time.monotonic()
        if not orphans_told and (launcher_gone or not tracker.group_alive()):
            tracker.signal_escaped(signal.SIGTERM)
            orphans_told, deadline = True, min(deadline, now + orphan_grace_s)
        if now >= deadline:
            await _until_gone(tracker, kill_wait_s, poll_s, resend=signal.SIGKILL)
            return
        await asyncio.sleep(poll_s)


async def _until_gone(tracker: RankTracker, limit_s: float, poll_s: float, resend: int | None = None) -> bool:
    deadline = time.monotonic() + limit_s
    while tracker.alive():
        if resend is not None:  # a survivor found only now gets the signal too
            tracker.signal_all(resend)
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(poll_s)
    return True
