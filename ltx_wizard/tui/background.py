"""Start the real training run detached from the wizard: it survives the wizard and the SSH session.

What runs is the run folder's `launch.sh` (core/launch_script.py), the same script the Done screen
tells the user to run by hand: it appends to `<run>/logs/train.log` and writes the trainer's pid
to `<run>/logs/train.pid`. A live pid file refuses a second start.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from ltx_wizard.core.bounded_io import read_bytes
from ltx_wizard.core.errors import UsageError, WizardError
from ltx_wizard.core.launch_script import ensure_script, log_path, pid_path
from ltx_wizard.core.safe_fs import check_inside, create_run_dir
from ltx_wizard.core.workspace import atomic_write_text


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def running_pid(run_dir: Path) -> int | None:
    """The pid of a training already started from this run folder, if it still runs."""
    try:
        pid = int(read_bytes(pid_path(run_dir), what="train.pid", limit=64).strip())
    except (UsageError, ValueError):  # absent, a planted FIFO, garbage: no training recorded
        return None
    return pid if _alive(pid) else None


def start_training(run_dir: Path) -> tuple[int, Path]:
    """Run `bash <run>/launch.sh` in its own session; return (pid, log path). Raises WizardError."""
    other = running_pid(run_dir)
    if other is not None:
        raise WizardError(
            f"training from {run_dir} already runs as pid {other}: stop it (kill {other}) first"
        )
    create_run_dir(run_dir)  # a real folder of ours: a planted link is refused
    script = ensure_script(run_dir)
    log = check_inside(run_dir, log_path(run_dir))  # logs/ made, no planted link followed
    try:
        proc = subprocess.Popen(
            ["bash", str(script)],
            cwd=run_dir,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,  # launch.sh appends to the log itself
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # no SIGHUP when the SSH session or the wizard ends
            close_fds=True,
        )
    except OSError as exc:
        raise WizardError(f"could not start bash {script}: {exc.strerror or exc}") from None
    # launch.sh writes the same pid (it execs the trainer); writing it here too means the
    # file is there the moment this returns.
    atomic_write_text(pid_path(run_dir), f"{proc.pid}\n", root=run_dir)
    return proc.pid, log
