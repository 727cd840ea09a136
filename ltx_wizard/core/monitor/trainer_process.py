"""The run's trainer process: is it ours and alive, since when, and stopping it with its ranks.

launch.sh writes its pid and start time (it then execs the trainer) to the pid file; the wizard's
background start uses a new session, so that pid also leads the process group. A pid the kernel
has since given to another program is told apart by the recorded start time (core/proc/table.py).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path

from ltx_wizard.core.launch.background import running_pid
from ltx_wizard.core.proc.stop import TRAINER_GRACES, take_down
from ltx_wizard.core.proc.table import process_start_time
from ltx_wizard.core.proc.tree import RankTracker


@dataclass(frozen=True)
class TrainerProcess:
    pid: int
    started: datetime | None  # UTC, from the kernel


def _boot_time() -> float | None:
    try:
        with open("/proc/stat", "rb") as fh:
            for line in fh:
                if line.startswith(b"btime "):
                    return float(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def started_at(pid: int) -> datetime | None:
    ticks, boot = process_start_time(pid), _boot_time()
    if ticks is None or boot is None:
        return None
    seconds = boot + int(ticks) / os.sysconf("SC_CLK_TCK")
    return datetime.fromtimestamp(seconds, tz=timezone.utc)


def trainer_process(run_dir: Path) -> TrainerProcess | None:
    """The live trainer of this run folder, or None."""
    pid = running_pid(run_dir)  # checked against its recorded start time: a recycled pid is None
    if pid is None:
        return None
    return TrainerProcess(pid, started_at(pid))


async def stop_trainer(proc: TrainerProcess, *, grace_s: float = 30.0, poll_s: float = 0.2) -> None:
    """The stop rule (core/proc/stop.py) on the trainer's group and every rank that left it, as
    on any child: SIGINT, SIGTERM (then `grace_s` for its ranks), SIGKILL. A trainer that does not lead its own group (launch.sh
    started by hand from a script) is stopped as a process tree: its group may hold the script."""
    try:
        pgid = os.getpgid(proc.pid)
    except ProcessLookupError:
        return
    if started_at(proc.pid) != proc.started:
        return  # not our process any more
    tracker = RankTracker(proc.pid)  # the group led by the trainer's pid, when there is one
    if pgid != proc.pid:
        tracker.known = {proc.pid: int(process_start_time(proc.pid) or 0)}
    tracker.refresh()
    await take_down(tracker, graces=replace(TRAINER_GRACES.with_term(grace_s), poll_s=poll_s))
