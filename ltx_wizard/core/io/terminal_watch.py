"""Leave when the terminal is gone, even if the wizard is stuck writing to it.

When tmux or an SSH session dies, SIGHUP normally ends the wizard cleanly. But a process blocked
in write() to the dead terminal never gets back to its event loop to handle the signal, and would
hold the run lock forever. This daemon thread asks the kernel about the terminal every half
second; once it reports a hang-up, the wizard has `grace_s` to finish on its own, then the thread
stops every trial group and leaves with 128 + SIGHUP. (The trials' reaper stops them anyway when
the wizard dies; the lock is then stale and the next start takes it over.)
"""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import Callable, TextIO

POLL_S = 0.5


def terminal_alive(fd: int) -> bool:
    import termios

    try:  # works on any terminal; after a hang-up the kernel answers every ioctl with EIO
        termios.tcgetattr(fd)
    except (OSError, termios.error):
        return False
    return True


def stream_fd(stream: TextIO | None) -> int | None:
    """The file descriptor behind a text stream, or None (a test's capture buffer has none)."""
    if stream is None:  # sys.__stdout__ without a console
        return None
    try:
        return stream.fileno()
    except (AttributeError, OSError, ValueError):
        return None


def watch_terminal(
    fd: int | None, *, grace_s: float = 5.0, before_exit: Callable[[], None] | None = None
) -> threading.Thread | None:
    """Start the watcher for terminal `fd`; None when `fd` is not a terminal to begin with."""
    if fd is None or not os.isatty(fd) or not terminal_alive(fd):
        return None

    def run() -> None:
        while terminal_alive(fd):
            time.sleep(POLL_S)
        time.sleep(grace_s)  # the orderly SIGHUP path usually ends the process meanwhile
        if before_exit is not None:
            try:
                before_exit()
            except Exception:  # nothing may stop the exit now
                pass
        os._exit(128 + signal.SIGHUP)

    thread = threading.Thread(target=run, name="ltx-terminal-watch", daemon=True)
    thread.start()
    return thread
