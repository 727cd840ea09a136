"""The `pid start-time` records (the run lock, `logs/train.pid`, `logs/eval.pid`) that name one
process, read and written as files of the run folder; whether it lives is core/proc/table.py's.

A pid alone does not name a process for good: the kernel reuses it. A record therefore holds
the pid and the kernel's start time of that process (clock ticks since boot, field 22 of
/proc/<pid>/stat: the same number launch.sh reads with bash). A record is trusted only when the
pid is plausible (2..PID_MAX: 0, -1 and 1 are process groups or init, never ours), the process
lives, and its start time still matches; anything else is stale. Numbers are bounded before they
are converted, so a 20-digit pid is "not a pid", not an OverflowError.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.io.bounded import bounded_int, read_bytes
from ltx_wizard.core.proc.table import PID_MAX, pid_alive, process_start_time

RECORD_MAX_BYTES = 64  # "<pid> <start time>\n" is under 40 bytes
_START = re.compile(r"[0-9]{1,20}")


def record_text(pid: int) -> str:
    """What a record of `pid` holds: `<pid> <start time>` ('-' where start times are unknown)."""
    return f"{pid} {process_start_time(pid) or '-'}\n"


@dataclass(frozen=True)
class PidRecord:
    """A parsed record; `pid` None when the file is absent, damaged or names no plausible pid."""

    pid: int | None
    started: str | None = None
    problem: str | None = None  # why it names no process: shown as "stale", never acted on

    def alive(self, *, verified: bool = False) -> bool:
        """The recorded process still runs: plausible pid, alive, same start time.

        `verified` (train.pid, whose pid the Done screen offers to stop): where start times can
        be read, a record without one names nobody for sure, so it is stale. The run lock keeps
        trusting a bare pid (its holder is only waited for, never stopped)."""
        if self.pid is None or not pid_alive(self.pid):
            return False
        now = process_start_time(self.pid)
        if now is None:  # no /proc: the pid is all there is
            return True
        if self.started is None:
            return not verified
        return now == self.started


def parse_record(data: bytes) -> PidRecord:
    """`<pid>[ <start time>]`; anything else is a stale record with its problem named."""
    parts = data.decode("ascii", "replace").split()
    if not parts or len(parts) > 2:
        return PidRecord(None, problem="not a pid record")
    try:  # bounded before int(): 20 digits, '-1' or '+5' are no pid
        pid = bounded_int(parts[0], what="pid", lo=2, hi=PID_MAX, max_digits=7, signed=False)
    except UsageError as exc:
        return PidRecord(None, problem=f"{exc.message}: it cannot be a training or a wizard")
    started = parts[1] if len(parts) > 1 and _START.fullmatch(parts[1]) else None
    return PidRecord(pid, started)


def read_record(path: Path, what: str) -> PidRecord:
    """A record file, read as a regular small file only (a FIFO, a folder or a link to a device
    reads as no record, without blocking)."""
    try:
        return parse_record(read_bytes(path, what=what, limit=RECORD_MAX_BYTES))
    except UsageError as exc:
        return PidRecord(None, problem=exc.message)
