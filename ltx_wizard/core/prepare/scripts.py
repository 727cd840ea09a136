"""The trainer's data scripts, run as the skill runs them: `uv run python scripts/<name>.py` in
the checkout's packages/ltx-trainer folder, each argument checked against the options the
user's copy of the script declares (read without running it, core/preprocess/command.py), so an
older checkout is refused before anything runs. Output goes to a log in the run folder; lines are
handed on as they arrive (rich redraws its bars with a carriage return: each is a line here).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import signal
import time
from dataclasses import field
from pathlib import Path
from typing import Callable, Mapping

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.records import record
from ltx_wizard.core.preprocess.command import script_options
from ltx_wizard.core.preprocess.progress import PROGRESS_ENV
from ltx_wizard.core.io.processes import group_alive

# What --simulate does to these scripts, said in the same words by `prepare --help`, the Prepare
# screen and the README (tests/cli/test_cli_prepare.py holds them together)
SIMULATE_SAYS = (
    "With --simulate the GPUs are simulated, and what runs on them: the checkout's scripts run in "
    "its own environment (uv run python), as without it; the local captioner server, which needs the "
    "GPU, is a stand-in (no model), and the sound check asks the simulated preprocessing, which "
    "preprocess --simulate runs."
)
READ_CHUNK = 8192
STOP_GRACE_S = 10.0
_GROUPS: set[int] = set()  # process groups started here and not yet seen to end


@record
class ScriptRunner:
    """`prefix` runs a Python file in the checkout's environment: ("uv", "run", "python"), or for
    the demo's look-alike checkout the wizard's own interpreter. `stand_ins`: the scripts that need
    a real GPU, replaced where the GPUs are simulated (script name -> the command run in its
    place with the script's own arguments); every other script still runs in the checkout's
    environment, as without --simulate."""

    trainer_dir: Path
    prefix: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)
    stand_ins: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def script(self, name: str) -> Path:
        return self.trainer_dir / "scripts" / name

    def argv(self, name: str, args: list[str]) -> list[str]:
        if name in self.stand_ins:
            return [*self.stand_ins[name], *args]
        return [*self.prefix, str(Path("scripts") / name), *args]

    def python(self, args: list[str]) -> list[str]:
        return [*self.prefix, *args]


def uv_runner(trainer_dir: Path, uv_path: str | None) -> ScriptRunner:
    if uv_path is None:
        raise UsageError(
            "uv is not on PATH, so the trainer's data scripts cannot run: install uv "
            "(curl -LsSf https://astral.sh/uv/install.sh | sh), then `uv sync` in "
            "your LTX-2 checkout"
        )
    return ScriptRunner(trainer_dir=trainer_dir, prefix=(uv_path, "run", "python"))


def require_options(runner: ScriptRunner, name: str, flags: list[str]) -> None:
    """Refuse a checkout whose scripts/<name> lacks an option the wizard would pass."""
    script = runner.script(name)
    if not script.is_file():
        raise UsageError(f"the checkout has no scripts/{name} ({script}): update it (git pull, uv sync)")
    options = script_options(script)
    lacking = [f for f in flags if f.startswith("--") and f not in options.flags]
    if lacking:
        raise UsageError(
            f"the checkout's scripts/{name} has no {lacking[0]} option (an older "
            "trainer?): update the checkout (git pull, uv sync)"
        )


def flags_of(args: list[str]) -> list[str]:
    return [a for a in args if a.startswith("--")]


async def run_script(
    argv: list[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    log: Path,
    on_line: Callable[[str], None] = lambda line: None,
) -> int:
    """Run `argv` (never through a shell) in its own process group, its output appended to
    `log` and handed to `on_line` line by line; cancelling stops the whole group."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as head:  # the exact command first: the log says what ran
        head.write(("$ " + " ".join(argv) + "\n").encode())
    proc = await asyncio.create_subprocess_exec(
        *argv,
        cwd=str(cwd),
        env={**env, **PROGRESS_ENV},
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    track(proc.pid)
    pending = ""
    try:
        with open(log, "ab") as sink:
            assert proc.stdout is not None
            while chunk := await proc.stdout.read(READ_CHUNK):
                sink.write(chunk)
                sink.flush()
                pending += chunk.decode("utf-8", "replace")
                *lines, pending = pending.replace("\r", "\n").split("\n")
                for line in lines:
                    on_line(line)
        if pending:
            on_line(pending)
        code = await proc.wait()
        _GROUPS.discard(proc.pid)
        return code
    except BaseException:
        await stop_group(proc)
        raise


async def stop_group(proc: asyncio.subprocess.Process) -> None:
    """SIGTERM to the process group, SIGKILL after the grace period."""
    for sig, wait in ((signal.SIGTERM, STOP_GRACE_S), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, sig)
        with contextlib.suppress(asyncio.TimeoutError, Exception):
            await asyncio.wait_for(asyncio.shield(proc.wait()), wait)
            break
    _GROUPS.discard(proc.pid)


def track(pgid: int) -> None:
    """A process group to stop if the wizard leaves while it runs (kill_now, and at exit)."""
    if not _GROUPS:
        atexit.register(kill_now)
    _GROUPS.add(pgid)


def untrack(pgid: int) -> None:
    _GROUPS.discard(pgid)


def kill_now(grace_s: float = 2.0) -> None:
    """Without an event loop (the app leaving, the interpreter exiting): every script or
    captioner server still running gets SIGTERM, and SIGKILL after `grace_s`."""
    for pgid in list(_GROUPS):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while any(group_alive(p) for p in _GROUPS) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pgid in list(_GROUPS):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)
        _GROUPS.discard(pgid)
