"""Start the real training run detached from the wizard: it survives the wizard and the SSH session
(a "detached" child of core/proc: its own session, tagged so that no reaper ever stops it).

What runs is the run folder's `launch.sh` (core/launch/script.py), the same script the Done screen
tells the user to run by hand: it appends to `<run>/logs/train.log` and writes the trainer's pid
to `<run>/logs/train.pid`. A live pid file refuses a second start.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from ltx_wizard.core.io.run_folder import TRAIN_PID
from ltx_wizard.core.base.errors import UsageError, WizardError
from ltx_wizard.core.launch.script import ensure_script, launch_files
from ltx_wizard.core.io.pid_records import PidRecord, read_record, record_text
from ltx_wizard.core.io.run_meta import read_run_meta
from ltx_wizard.core.io.safe_fs import check_inside, create_run_dir
from ltx_wizard.core.io.workspace import atomic_write_text
from ltx_wizard.core.proc.spawn import spawn


_started: list[subprocess.Popen[bytes]] = []  # trainings this process started (their parent: us)


def poll_started() -> None:
    """Reap the trainings this wizard started that have ended, so their pids are free and no
    zombie is left while the wizard stays open (a zombie reads as ended anyway)."""
    _started[:] = [proc for proc in _started if proc.poll() is None]


def running_pid(run_dir: Path) -> int | None:
    """The pid of a training already started from this run folder, if it still runs: the record
    in train.pid (pid and start time, core/io/pid_records.py) names a live process that started when
    the record says. A stale, damaged or implausible record (0, -1, 1, 20 digits, a FIFO) is no
    training: it is never named as something to stop."""
    poll_started()
    record = _record(run_dir)
    return record.pid if record.alive(verified=True) else None


def _record(run_dir: Path) -> PidRecord:
    return read_record(launch_files(run_dir)[1], what=TRAIN_PID.what)


def check_not_moved(run_dir: Path) -> None:
    """A run folder moved or copied away from where the plan put it still names the old place in
    config.yaml: training it would write there. Refused, as launch.sh refuses it."""
    planned = read_run_meta(Path(run_dir)).run_dir
    here = Path(run_dir).resolve()
    if planned is not None and Path(planned) != here:
        raise UsageError(
            f"run folder {here} was planned at {planned} (moved or copied): its "
            "config.yaml still names that place; plan it again here (ltx-wizard "
            "plan ... --force, or New run), or move it back"
        )


def start_training(run_dir: Path) -> tuple[int, Path]:
    """Run `bash <run>/launch.sh` in its own session; return (pid, log path). Raises WizardError."""
    other = running_pid(run_dir)
    if other is not None:
        raise WizardError(f"training from {run_dir} already runs as pid {other}: stop that training first")
    check_not_moved(run_dir)
    create_run_dir(run_dir)  # a real folder of ours: a planted link is refused
    script = ensure_script(run_dir)
    log, pid_file = launch_files(run_dir)  # as the plan recorded them in run.json
    log = check_inside(run_dir, log)  # its folder made, no planted link followed
    # detached: its own session (no SIGHUP when the SSH session or the wizard ends), never reaped
    proc = spawn(
        ["bash", str(script)],
        kind="detached",
        cwd=run_dir,
        stdout=subprocess.DEVNULL,  # launch.sh appends to the log itself
        stderr=subprocess.DEVNULL,
    ).popen
    _started.append(proc)  # reaped by poll_started(): a stopped run leaves no zombie behind
    # launch.sh writes the same pid (it execs the trainer); writing it here too means the
    # file is there the moment this returns.
    atomic_write_text(pid_file, record_text(proc.pid), root=run_dir)
    return proc.pid, log
