"""Run one preprocessing step as a child process, its output logged and its bars parsed.

asyncio subprocess (argument lists, never a shell), in its own process group so a cancel stops
the script and its data-loader workers together: SIGTERM to the group, then SIGKILL to whatever
is left after a short grace, so nothing runs on after the wizard.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from pathlib import Path
from typing import Callable, Mapping

from ltx_wizard.core.io.processes import group_alive
from ltx_wizard.core.io.safe_fs import open_append, write_all
from ltx_wizard.core.preprocess.progress import PROGRESS_ENV, ProgressParser

READ_CHUNK = 8192
STOP_GRACE_S = 5.0  # after SIGTERM: the script's loaders end in well under this
KILL_WAIT_S = 5.0  # after SIGKILL: the kernel clears the group


async def run_logged(
    argv: list[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    log: Path,
    on_progress: Callable[[ProgressParser], None],
    root: Path | None = None,
) -> tuple[int, ProgressParser]:
    """Run `argv`; returns (exit code, what was parsed). Cancelling stops the process group.
    `log` is appended to without following a link (checked inside `root`, the run folder); a
    write that fails (a full disk) stops the script and is one WizardError naming the log."""
    parser = ProgressParser()
    sink = open_append(log, root=root, binary=True)  # written through its fd, unbuffered
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            cwd=str(cwd),
            env={**env, **PROGRESS_ENV},
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
    except BaseException:
        sink.close()
        raise
    try:
        with sink:
            assert proc.stdout is not None
            while chunk := await proc.stdout.read(READ_CHUNK):
                write_all(sink.fileno(), chunk, log)
                if parser.feed(chunk.decode("utf-8", "replace"), time.monotonic()):
                    on_progress(parser)
        return await proc.wait(), parser
    except BaseException:
        await stop_group(proc)
        raise


async def stop_group(proc: asyncio.subprocess.Process) -> None:
    """SIGTERM the script's group; SIGKILL it if anything is left after the grace."""
    for sig, wait_s in ((signal.SIGTERM, STOP_GRACE_S), (signal.SIGKILL, KILL_WAIT_S)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, sig)
        try:
            await asyncio.shield(asyncio.wait_for(proc.wait(), wait_s))
            if not group_alive(proc.pid):
                return
        except (asyncio.TimeoutError, asyncio.CancelledError):
            continue
