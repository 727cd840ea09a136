"""The process table, read one way: is a pid alive, is a group, when did a process start, every
live process (pid, parent, group, start time), and environments (the tag every child of the
wizard carries). The one owner: no other module parses /proc for processes.

On Linux the table is read from /proc/<pid>/stat directly (pid, parent, group and start time in
one small read: trial trees are walked every few seconds); elsewhere, and for environments
everywhere, psutil answers (macOS has no /proc).

The zombie rule, the same for a pid and a group: a zombie (an exited process whose parent has not
reaped it, state Z or X: a container whose PID 1 never reaps keeps them for good) runs nothing
and holds nothing, so it is not alive; a group is alive while it has one member that is not a
zombie. Without /proc the kernel's answer stands (kill(pid, 0)), zombies included.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterator

PID_MAX = 4_194_304  # Linux's PID_MAX_LIMIT (macOS stops at 99,998): no real pid is larger


def has_proc() -> bool:
    return os.path.isdir("/proc/self")


def pid_alive(pid: int) -> bool:
    """Whether process `pid` exists and is no zombie. Only plausible pids are asked: os.kill(0
    or -1, 0) would answer for a whole process group."""
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
    return not is_zombie(pid)


def group_alive(pgid: int) -> bool:
    """Process group `pgid` has a member that is no zombie (the module's rule)."""
    if has_proc():
        return any(row.pgrp == pgid for row in proc_rows())
    try:  # no /proc (macOS): the kernel's answer, zombies included
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _stat_fields(pid: int) -> list[bytes] | None:
    """The fields of /proc/<pid>/stat after the command name (state first); None off Linux."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat_line = fh.read(4096)
    except OSError:
        return None
    return stat_line[stat_line.rfind(b")") + 2 :].split()


def is_zombie(pid: int) -> bool:
    """An exited process not yet reaped: it answers kill(pid, 0) but runs nothing. Off Linux: no."""
    fields = _stat_fields(pid)
    return fields is not None and fields[:1] in ([b"Z"], [b"X"])


def process_start_time(pid: int) -> str | None:
    """The kernel's start time of `pid` (clock ticks since boot): with the pid, it names one
    process for good, so a recycled pid is not mistaken for the one recorded. None off Linux."""
    if not 1 <= pid <= PID_MAX:
        return None
    fields = _stat_fields(pid)
    try:
        return fields[19].decode("ascii") if fields else None
    except (IndexError, UnicodeDecodeError):
        return None


def start_wall_time(ticks: str | None) -> float | None:
    """A start time as process_start_time gives it, as seconds since the epoch (the boot time in
    /proc/stat plus the ticks); None off Linux or when unknown."""
    if ticks is None or not ticks.isdigit():
        return None
    try:
        with open("/proc/stat", "rb") as fh:
            boot = next(int(line.split()[1]) for line in fh if line.startswith(b"btime "))
        return boot + int(ticks) / os.sysconf("SC_CLK_TCK")
    except (OSError, StopIteration, ValueError, IndexError):
        return None


@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    pgrp: int
    start: int  # clock ticks after boot (Linux): with the pid, names one process for its lifetime


def proc_rows() -> list[Proc]:
    """Every live process; zombies are left out (the module's rule)."""
    if not has_proc():
        return list(psutil_rows())
    rows: list[Proc] = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return rows
    for name in names:
        if name.isdigit() and (row := _stat_row(int(name))) is not None:
            rows.append(row)
    return rows


def _stat_row(pid: int) -> Proc | None:
    fields = _stat_fields(pid)  # None: gone meanwhile
    if fields is None or len(fields) <= 19 or fields[0] == b"Z":
        return None
    try:
        return Proc(pid, int(fields[1]), int(fields[2]), int(fields[19]))
    except ValueError:
        return None


def psutil_rows() -> Iterator[Proc]:
    """The table from psutil, where there is no /proc (and for tests of that path)."""
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


def env_values(name: str) -> dict[int, str]:
    """pid -> the value of `name` in its environment, for every live process (never ourselves,
    no zombie) that we may read and that has it: a tag every descendant inherits, found even
    after a setsid left the group it was started in."""
    if has_proc():
        return _proc_env_values(name)
    import psutil

    found: dict[int, str] = {}
    for proc in psutil.process_iter(["pid", "status"]):
        if proc.info["pid"] == os.getpid() or proc.info.get("status") == psutil.STATUS_ZOMBIE:
            continue
        try:
            value = proc.environ().get(name)
        except (psutil.Error, OSError):  # gone, or not ours to read
            continue
        if value is not None:
            found[proc.info["pid"]] = value
    return found


def _proc_env_values(name: str) -> dict[int, str]:
    key = b"\0" + name.encode() + b"="
    found: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                data = b"\0" + fh.read()
        except OSError:  # gone, or not ours to read (a zombie reads as empty)
            continue
        at = data.find(key)
        if at >= 0:
            end = data.find(b"\0", at + len(key))
            found[int(entry)] = data[at + len(key) : end if end >= 0 else None].decode("utf-8", "replace")
    return found


def pids_with_env(name: str, value: str) -> list[int]:
    """Live processes (never ourselves, no zombie) whose environment holds `name=value`."""
    return [pid for pid, got in env_values(name).items() if got == value]
