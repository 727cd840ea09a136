"""Processes, read one way: is a pid alive, when did it start, the process table (trees of
trials), environments (the session tag), and the `pid start-time` records (the run lock,
`logs/train.pid`) that name one. The one owner: no other module parses /proc for processes.

On Linux the table is read from /proc/<pid>/stat directly (pid, parent, group and start time in
one small read: the trial walks run every few seconds); elsewhere, and for environments
everywhere, psutil answers (macOS has no /proc).

A pid alone does not name a process for good: the kernel reuses it. A record therefore holds
the pid and the kernel's start time of that process (clock ticks since boot, field 22 of
/proc/<pid>/stat: the same number launch.sh reads with bash). A record is trusted only when the
pid is plausible (2..PID_MAX: 0, -1 and 1 are process groups or init, never ours), the process
lives, and its start time still matches; anything else is stale. Numbers are bounded before they
are converted, so a 20-digit pid is "not a pid", not an OverflowError.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from ltx_wizard.core.io.bounded import bounded_int, read_bytes
from ltx_wizard.core.base.errors import UsageError

PID_MAX = 4_194_304  # Linux's PID_MAX_LIMIT (macOS stops at 99,998): no real pid is larger
RECORD_MAX_BYTES = 64  # "<pid> <start time>\n" is under 40 bytes
_START = re.compile(r"[0-9]{1,20}")


def pid_alive(pid: int) -> bool:
    """Whether process `pid` exists (run locks, background training). Only plausible pids are
    asked: os.kill(0 or -1, 0) would answer for a whole process group."""
    if not 2 <= pid <= PID_MAX:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    except (OSError, OverflowError):
        return False
    return not _is_zombie(pid)


def group_alive(pgid: int) -> bool:
    """A process group has a member still (one we may not signal counts as alive)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _is_zombie(pid: int) -> bool:
    """An exited process not yet reaped (state Z/X in /proc/<pid>/stat): it answers kill(pid, 0)
    but runs nothing, so a training stopped or crashed under a parent that has not waited for it
    yet (the wizard itself, or a container's PID 1 that never reaps) is not live. Off Linux: no."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat_line = fh.read(4096)
    except OSError:
        return False
    state = stat_line[stat_line.rfind(b")") + 2 :][:1]
    return state in (b"Z", b"X")


def process_start_time(pid: int) -> str | None:
    """The kernel's start time of `pid` (clock ticks since boot): with the pid, it names one
    process for good, so a recycled pid is not mistaken for the one recorded. None off Linux."""
    if not 1 <= pid <= PID_MAX:
        return None
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat_line = fh.read(4096)
        return stat_line[stat_line.rfind(b")") + 2 :].split()[19].decode("ascii")
    except (OSError, IndexError, UnicodeDecodeError):
        return None


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


# -- the process table -------------------------------------------------------------------------


@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    pgrp: int
    start: int  # clock ticks after boot (Linux): with the pid, names one process for its lifetime


def proc_rows() -> list[Proc]:
    """Every live process; zombies are left out: they hold nothing (reparented children linger
    as zombies in containers whose PID 1 does not reap)."""
    if not os.path.isdir("/proc/self"):
        return list(_psutil_rows())
    rows: list[Proc] = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return rows
    for name in names:
        if not name.isdigit():
            continue
        row = _stat_row(name)
        if row is not None:
            rows.append(row)
    return rows


def _stat_row(name: str) -> Proc | None:
    try:
        with open(f"/proc/{name}/stat", "rb") as fh:
            stat = fh.read(4096)
    except OSError:  # gone meanwhile
        return None
    fields = stat[stat.rfind(b")") + 2 :].split()
    if len(fields) <= 19 or fields[0] == b"Z":
        return None
    try:
        return Proc(int(name), int(fields[1]), int(fields[2]), int(fields[19]))
    except ValueError:
        return None


def _psutil_rows() -> Iterator[Proc]:
    import psutil  # only where there is no /proc: not on the wizard's start-up path

    for proc in psutil.process_iter(["pid", "ppid", "create_time", "status"]):
        info = proc.info
        if info.get("status") == psutil.STATUS_ZOMBIE or info.get("ppid") is None:
            continue
        try:
            pgrp = os.getpgid(info["pid"])
        except OSError:
            continue
        yield Proc(info["pid"], info["ppid"], pgrp, int((info.get("create_time") or 0) * 100))


def pids_with_env(name: str, value: str) -> list[int]:
    """Live processes (never ourselves, no zombie) whose environment holds `name=value`: a tag
    every descendant inherits, found even after a setsid left the trial's group."""
    import psutil

    found = []
    for proc in psutil.process_iter(["pid", "status"]):
        if proc.info["pid"] == os.getpid() or proc.info.get("status") == psutil.STATUS_ZOMBIE:
            continue
        try:
            env = proc.environ()
        except (psutil.Error, OSError):  # gone, or not ours to read
            continue
        if env.get(name) == value:
            found.append(proc.info["pid"])
    return found
