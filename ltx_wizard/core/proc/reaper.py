"""A session's watchdog: no child of a session outlives the wizard, even a wizard killed by
SIGKILL (the OOM killer). A tiny process of its own session holds the read end of a pipe whose
write end only the wizard holds: when the wizard dies the pipe reaches EOF and the watchdog stops
every process carrying the session's tag (tags.py), by the stop rule. `close()` ends it without
it stopping anything. Run as `python -m ltx_wizard.core.proc.reaper SESSION`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys

from ltx_wizard.core.proc.stop import Graces, take_down_blocking
from ltx_wizard.core.proc.tags import tagged_pids
from ltx_wizard.core.proc.tree import RankTracker

_TERM_GRACE_S = 5.0


def stop_tagged(session: str, grace_s: float = _TERM_GRACE_S) -> list[int]:
    """The stop rule on every process of the session (none is a group we lead any more: each
    is stopped as a process); returns the pids found."""
    pids = tagged_pids(session)
    if pids:
        tree = RankTracker(None, tag=session)
        tree.adopt(pids)
        graces = Graces(interrupt_s=min(1.0, grace_s), term_s=grace_s, orphan_s=grace_s)
        take_down_blocking(tree, launcher_gone=True, graces=graces)
    return pids


class Reaper:
    """The watchdog process of one session."""

    def __init__(self, session: str) -> None:
        read_fd, write_fd = os.pipe()
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "ltx_wizard.core.proc.reaper", session],
                stdin=read_fd,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # a terminal's SIGINT/SIGHUP must not take it first
                close_fds=True,
            )
        finally:
            os.close(read_fd)
        os.set_inheritable(write_fd, False)  # children must not hold it open
        self._write_fd: int | None = write_fd

    def close(self) -> None:
        if self._write_fd is None:
            return
        with contextlib.suppress(OSError):
            os.write(self._write_fd, b"done\n")
        os.close(self._write_fd)
        self._write_fd = None
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)


def _reaper_main(session: str) -> None:
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)
    data = b""
    while chunk := os.read(0, 64):
        data += chunk
    if b"done" not in data:  # EOF without a goodbye: the wizard is gone
        stop_tagged(session)


if __name__ == "__main__":  # the watchdog process
    _reaper_main(sys.argv[1])
