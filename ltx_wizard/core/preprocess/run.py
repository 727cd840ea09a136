"""Run one preprocessing step as a child process, its output logged and its bars parsed.

asyncio subprocess (argument lists, never a shell), in its own process group so a cancel stops
the script and its data-loader workers together.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from pathlib import Path
from typing import Callable, Mapping

from ltx_wizard.core.preprocess.progress import PROGRESS_ENV, ProgressParser

READ_CHUNK = 8192


async def run_logged(argv: list[str], *, cwd: Path, env: Mapping[str, str], log: Path,
                     on_progress: Callable[[ProgressParser], None]) -> tuple[int, ProgressParser]:
    """Run `argv`; returns (exit code, what was parsed). Cancelling stops the process group."""
    parser = ProgressParser()
    log.parent.mkdir(parents=True, exist_ok=True)
    proc = await asyncio.create_subprocess_exec(
        *argv, cwd=str(cwd), env={**env, **PROGRESS_ENV}, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        start_new_session=True)
    try:
        with open(log, "ab") as sink:
            assert proc.stdout is not None
            while chunk := await proc.stdout.read(READ_CHUNK):
                sink.write(chunk)
                sink.flush()
                if parser.feed(chunk.decode("utf-8", "replace"), time.monotonic()):
                    on_progress(parser)
        return await proc.wait(), parser
    except BaseException:
        _stop_group(proc.pid)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(proc.wait(), 10)
        raise


def _stop_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGTERM)
