"""Start the real training run detached from the wizard: it survives the wizard and the SSH session.

Output goes to `<run>/logs/train.log`, the pid to `<run>/logs/train.pid` (written atomically), so
the user can `tail -f` the log and `kill` the pid later. A live pid file refuses a second start.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Mapping, Sequence

from ltx_wizard.core.bounded_io import read_bytes
from ltx_wizard.core.errors import UsageError, WizardError
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
        pid = int(read_bytes(run_dir / "logs" / "train.pid", what="train.pid", limit=64).strip())
    except (UsageError, ValueError):  # absent, planted FIFO, garbage: no training recorded
        return None
    return pid if _alive(pid) else None


def start_training(
    argv: Sequence[str], *, cwd: Path, run_dir: Path, env: Mapping[str, str] | None = None
) -> tuple[int, Path]:
    """Launch `argv` in its own session; return (pid, log path). Raises WizardError."""
    other = running_pid(run_dir)
    if other is not None:
        raise WizardError(
            f"training from {run_dir} already runs as pid {other}: stop it (kill {other}) first"
        )
    logs = run_dir / "logs"
    create_run_dir(run_dir)  # a real folder of ours: a planted link is refused
    log_path = check_inside(run_dir, logs / "train.log")  # no planted link followed
    full_env = {**os.environ, **(env or {}), "PYTHONUNBUFFERED": "1"}
    try:
        fd = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "ab") as log:
            proc = subprocess.Popen(
                list(argv),
                cwd=cwd,
                env=full_env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # no SIGHUP when the SSH session or the wizard ends
                close_fds=True,
            )
    except OSError as exc:
        raise WizardError(f"could not start {argv[0]}: {exc.strerror or exc}; check the trainer checkout") from None
    atomic_write_text(logs / "train.pid", f"{proc.pid}\n", root=run_dir)
    return proc.pid, log_path


def launch_from_plan(plan_text: str) -> str | None:
    """The launch line plan.md shows in its ```sh block, when the wizard has no draft in memory."""
    lines = plan_text.splitlines()
    for i, line in enumerate(lines):
        if line.strip() == "```sh" and i + 1 < len(lines):
            return lines[i + 1].strip() or None
    return None


def parse_shell_line(line: str) -> tuple[list[str], Path, dict[str, str]]:
    """Undo LaunchPlan.shell_line(): `cd DIR && [K=V ...] argv...` -> (argv, cwd, env)."""
    import shlex

    tokens = shlex.split(line)
    if len(tokens) < 4 or tokens[0] != "cd" or tokens[2] != "&&":
        raise WizardError(f"cannot read the launch line {line!r}: run it by hand from the run folder's plan.md")
    cwd, rest = Path(tokens[1]), tokens[3:]
    env: dict[str, str] = {}
    while rest and "=" in rest[0] and not rest[0].startswith("-") and rest[0].split("=", 1)[0].isidentifier():
        key, value = rest.pop(0).split("=", 1)
        env[key] = value
    if not rest:
        raise WizardError(f"the launch line {line!r} has no command: see plan.md")
    return rest, cwd, env
