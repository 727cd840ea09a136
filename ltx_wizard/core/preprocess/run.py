"""Run one preprocessing step as a child process, its output logged and its bars parsed.

Started through core/proc (argument lists, never a shell; its own session, tagged, registered),
so a cancel or a signal to the wizard stops the script and its data-loader workers together by
the one stop rule, and nothing runs on after the wizard.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Callable, Mapping

from ltx_wizard.core.io.safe_fs import open_append, write_all
from ltx_wizard.core.preprocess.progress import PROGRESS_ENV, ProgressParser
from ltx_wizard.core.proc.spawn import spawn_async
from ltx_wizard.core.proc.stop import Graces

READ_CHUNK = 8192
GRACES = Graces(interrupt_s=5.0, term_s=5.0)  # the script's loaders end in well under this


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
        child = await spawn_async(
            argv,
            env={**env, **PROGRESS_ENV},
            graces=GRACES,
            cwd=str(cwd),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
    except BaseException:
        sink.close()
        raise
    proc = child.proc
    try:
        with sink:
            assert proc.stdout is not None
            while chunk := await proc.stdout.read(READ_CHUNK):
                write_all(sink.fileno(), chunk, log)
                if parser.feed(chunk.decode("utf-8", "replace"), time.monotonic()):
                    on_progress(parser)
        code = await proc.wait()
    except BaseException:
        await asyncio.shield(child.stop())  # a cancel waits for the stop, which it cannot cut short
        raise
    await child.stop()  # the leader is gone: what it left behind goes too
    return code, parser
