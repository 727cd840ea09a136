"""The evaluation's own process: started in the background like training (a detached child of
core/proc: its own session, so it survives the wizard and an SSH drop, and tagged "detached", so
no reaper takes it), recorded in `logs/eval.pid`, and stopped on request by the one stop rule.

The process is `ltx-wizard eval RUN --job` (the front end passes the argv): it reads the job the
front end wrote and carries it out. One evaluation at a time per run folder, and none while the
run's training is live (both would want the same GPUs): the check and the pid record are made
under one flock (`logs/eval.lock`), so two starts at once cannot both pass it. A pid record is
believed only when its process is this run's evaluation (its command line is `... eval RUN`):
`--stop` never signals a process that took a recycled pid, or one a planted record names.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Iterator, Sequence

from ltx_wizard.core.io.run_folder import EVAL_PID
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.evaluation.job import LOG_REL, PID_REL, read_state
from ltx_wizard.core.io import run_folder
from ltx_wizard.core.io.pid_records import read_record, record_text
from ltx_wizard.core.io.safe_fs import check_inside, write_text
from ltx_wizard.core.launch.background import running_pid
from ltx_wizard.core.proc.spawn import spawn
from ltx_wizard.core.proc.stop import TRAINER_GRACES, take_down
from ltx_wizard.core.proc.table import has_proc, process_start_time
from ltx_wizard.core.proc.tree import RankTracker

_started: list[subprocess.Popen[bytes]] = []  # evaluations this process started: reaped, no zombies


def eval_pid(run_dir: Path) -> int | None:
    """The live evaluation of this run folder (its record checked against the start time)."""
    _started[:] = [p for p in _started if p.poll() is None]
    record = read_record(Path(run_dir) / PID_REL, what=EVAL_PID.what)
    if record.pid is None or not record.alive(verified=True):
        return None
    return record.pid if is_evaluation(record.pid, Path(run_dir)) else None


def is_evaluation(pid: int, run_dir: Path) -> bool:
    """`pid` runs `... eval RUN` for this run folder (an argument after `eval`, read against the
    process's own folder, is `run_dir`). Without /proc the start-time check is all there is."""
    if pid == os.getpid() or not has_proc():
        return True
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            args = [a.decode("utf-8", "surrogateescape") for a in handle.read(256 * 1024).split(b"\0")]
    except OSError:
        return False
    if "eval" not in args:
        return False
    try:
        cwd = os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        cwd = "/"  # another user's process: only an absolute argument can name the run
    want = os.path.realpath(run_dir)
    after = args[args.index("eval") + 1 :]
    return any(a and os.path.realpath(os.path.join(cwd, a)) == want for a in after)


@contextlib.contextmanager
def claimed(run_dir: Path) -> Iterator[None]:
    """Holds the run's evaluation lock (flock on logs/eval.lock, released by the kernel when its
    holder dies) while an evaluation is checked for and recorded."""
    import fcntl

    path = check_inside(Path(run_dir), Path(run_dir) / run_folder.EVAL_LOCK.rel)
    path.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_NONBLOCK", 0), 0o600)
    except OSError as exc:
        raise UsageError(f"evaluation lock {path} cannot be opened ({exc.strerror}): remove it") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def check_free(run_dir: Path) -> None:
    """UsageError while training or another evaluation of this run folder runs."""
    training = running_pid(run_dir)
    if training is not None:
        raise UsageError(
            f"training of {run_dir} still runs (pid {training}): evaluate once it "
            "has ended (the GPUs are taken)"
        )
    other = eval_pid(run_dir)
    if other is not None and other != os.getpid():
        raise UsageError(
            f"an evaluation of {run_dir} already runs (pid {other}): let it end or stop it first"
        )


def record_self(run_dir: Path) -> None:
    write_text(Path(run_dir) / PID_REL, record_text(os.getpid()), root=Path(run_dir))


def start_job(run_dir: Path, argv: Sequence[str]) -> tuple[int, Path]:
    """Start `argv` (the job's process) detached; returns (pid, its log)."""
    run = Path(run_dir)
    with claimed(run):
        check_free(run)
        log = check_inside(run, run / LOG_REL)
        with open(log, "a", encoding="utf-8") as handle:  # WizardError when it cannot start
            proc = spawn(argv, kind="detached", cwd=run, stdout=handle, stderr=subprocess.STDOUT).popen
        _started.append(proc)
        write_text(run / PID_REL, record_text(proc.pid), root=run)
    return proc.pid, log


async def stop_job(run_dir: Path, *, grace_s: float = 40.0) -> bool:
    """The stop rule on the evaluation (it takes its running process down itself, ranks
    included, on SIGINT or SIGTERM), and on what it was running if it is still there after
    `grace_s`. False when none ran."""
    pid = eval_pid(run_dir)
    if pid is None:
        return False
    state = read_state(run_dir)
    started = process_start_time(pid)
    tracker = RankTracker(pid)  # the job leads its own session and group
    tracker.known = {pid: int(started or 0)}
    if state is not None and state.child_pid and process_start_time(state.child_pid):
        tracker.known[state.child_pid] = int(process_start_time(state.child_pid) or 0)
    tracker.refresh()
    await take_down(tracker, graces=replace(TRAINER_GRACES.with_term(grace_s), poll_s=0.2))
    return True


def stop_job_now(run_dir: Path, *, grace_s: float = 40.0) -> bool:
    return asyncio.run(stop_job(run_dir, grace_s=grace_s))
