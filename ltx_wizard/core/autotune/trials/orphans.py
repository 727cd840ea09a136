"""No trial process outlives the wizard, however the wizard ends.

Every trial's environment carries a session tag (LTX_WIZARD_TRIAL=<tag>) that its descendants
inherit, so a grandchild that left the trial's process group (its own setsid) is still found by
reading its environment (core/io/processes.py). Three guards use the tag:

- a reaper, a tiny process of its own session that holds the read end of a pipe whose write end
  only the wizard holds: when the wizard dies, even by SIGKILL (the OOM killer), the pipe reaches
  EOF and the reaper stops every tagged process;
- a sweep after each trial, which stops tagged stragglers the group kill missed;
- a record in the run folder (overfit/.trial-session.json), so a resume refuses to start trial 1
  beside a previous session's trainer that is still running.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Iterator

from ltx_wizard.core.io.bounded import read_bytes
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.io.processes import pids_with_env
from ltx_wizard.core.io.safe_fs import remove_quietly, write_text

TAG_ENV = "LTX_WIZARD_TRIAL"
RECORD_NAME = ".trial-session.json"
_TERM_GRACE_S = 5.0


def new_tag() -> str:
    return f"{os.getpid()}-{uuid.uuid4().hex[:12]}"


def tagged_pids(tag: str) -> list[int]:
    """Live processes whose environment carries this session's tag (never ourselves), read by
    the one owner of process reading (core/io/processes.py, psutil: Linux and macOS)."""
    return pids_with_env(TAG_ENV, tag)


def stop_tagged(tag: str, grace_s: float = _TERM_GRACE_S) -> list[int]:
    """SIGTERM every tagged process, SIGKILL what is left after grace_s; returns the pids hit."""
    pids = tagged_pids(tag)
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while pids and time.monotonic() < deadline:
        time.sleep(0.05)
        pids = [p for p in pids if p in set(tagged_pids(tag))]
    for pid in tagged_pids(tag):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    return pids


class Reaper:
    """The watchdog process; `close()` ends it without it stopping anything."""

    def __init__(self, tag: str) -> None:
        read_fd, write_fd = os.pipe()
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "ltx_wizard.core.autotune.trials.orphans", tag],
                stdin=read_fd,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # a terminal's SIGINT/SIGHUP must not take it first
                close_fds=True,
            )
        finally:
            os.close(read_fd)
        os.set_inheritable(write_fd, False)  # trials must not hold it open
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


def _reaper_main(tag: str) -> None:
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)
    data = b""
    while chunk := os.read(0, 64):
        data += chunk
    if b"done" not in data:  # EOF without a goodbye: the wizard is gone
        stop_tagged(tag)


@contextlib.contextmanager
def guarded_session(overfit: Path, root: Path) -> Iterator[str]:
    """One autotune session: refuse while an earlier one's trials live, then yield the tag to
    put in every trial's environment; on the way out stop stragglers and end the reaper."""
    refuse_if_still_running(overfit)
    tag = new_tag()
    reaper = Reaper(tag)
    try:
        record_session(overfit, root, tag)
        yield tag
    finally:
        stop_tagged(tag, grace_s=2.0)
        reaper.close()
        clear_session(overfit)


# -- the record that makes a resume wait for the previous session's processes ----------------


def record_session(overfit: Path, root: Path, tag: str) -> None:
    write_text(overfit / RECORD_NAME, json.dumps({"tag": tag, "wizard_pid": os.getpid()}) + "\n", root=root)


def clear_session(overfit: Path) -> None:
    remove_quietly([overfit / RECORD_NAME])


def refuse_if_still_running(overfit: Path) -> None:
    """UsageError when a previous session's trial processes are still alive."""
    try:
        tag = str(json.loads(read_bytes(overfit / RECORD_NAME, what="trial record", limit=4096))["tag"])
    except (UsageError, ValueError, KeyError, TypeError):
        return
    alive = tagged_pids(tag)
    if alive:
        shown = " ".join(map(str, alive[:8]))
        raise UsageError(
            f"trial processes of an earlier autotune still run (pid {shown}): stop them "
            f"(kill {shown}) or wait for them to end, then resume"
        )


if __name__ == "__main__":  # the reaper process
    _reaper_main(sys.argv[1])
