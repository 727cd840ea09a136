"""Every process a child started, ranks that left its process group included.

torchrun (what `accelerate launch` runs) starts each rank with `start_new_session=True`: a rank
has its own session and process group, so a signal to the child's group never reaches it, and once
the launcher is gone the rank is re-parented and no longer looks like the child's. So the child's
tree is walked while it runs and every process seen in it is remembered, by pid and start time
(a pid the kernel has since given to a stranger is never signalled).
"""

from __future__ import annotations

import os
import threading
from typing import Callable

from ltx_wizard.core.proc.table import Proc, group_alive, has_proc, pid_alive, proc_rows


class RankTracker:
    """The processes of the child whose group (and leader pid) is `pgid`.

    `refresh()` while the child runs (from a thread too); `alive()` and `signal_all()` when
    taking it down.
    """

    def __init__(
        self, pgid: int | None, read_rows: Callable[[], list[Proc]] = proc_rows, *, tag: str | None = None
    ) -> None:
        self.pgid = pgid
        self.tag = tag  # the child's own tag (tags.py): what the last sweep looks for
        self.read_rows = read_rows
        self.known: dict[int, int] = {}  # pid -> start time, of every process seen in the tree
        self._lock = threading.RLock()  # a walk in a thread, take-down on the loop or in a signal handler

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
        """The child's processes still alive: its group, and every known process outside it."""
        rows = self.read_rows() if rows is None else rows
        return [row for row in rows if row.pgrp == self.pgid or self._is_known(row)]

    def alive(self) -> bool:
        """Anything of the child left (walks the tree first, so new children count too)."""
        if not has_proc():  # no /proc (macOS): the kernel's word on the group and the known
            return self.group_alive() or any(pid_alive(pid) for pid in self.known)
        return bool(self.survivors(self.refresh()))

    def group_alive(self) -> bool:
        """The launcher's own process group still has a live member (None: no group, only
        processes found by tag)."""
        return self.pgid is not None and group_alive(self.pgid)

    def signal_all(self, sig: int, *, escaped_too: bool = True) -> None:
        """`sig` to the group and, with escaped_too, to every known survivor outside it."""
        if self.pgid is not None:
            signal_group(self.pgid, sig)
        if escaped_too:
            self.signal_escaped(sig)

    def adopt(self, pids: list[int]) -> None:
        """Count these processes (found by tag) as the child's too."""
        with self._lock:
            for row in self.read_rows():
                if row.pid in pids:
                    self.known[row.pid] = row.start

    def signal_escaped(self, sig: int) -> None:
        for row in self.survivors():
            if row.pgrp != self.pgid:  # the group itself is signalled as a whole
                try:
                    os.kill(row.pid, sig)
                except (ProcessLookupError, PermissionError):
                    pass


def signal_group(pgid: int, sig: int) -> bool:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True
