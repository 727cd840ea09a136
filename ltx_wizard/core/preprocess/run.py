"""Run one preprocessing step as a child process, its output logged and its bars parsed.

Started through core/proc (argument lists, never a shell; its own session, tagged, registered),
so a cancel or a signal to the wizard stops the script and its data-loader workers together by
the one stop rule, and nothing runs on after the wizard.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable, Mapping

from ltx_wizard.core.io.child_log import run_to_log
from ltx_wizard.core.preprocess.preprocess_progress import PROGRESS_ENV, ProgressParser
from ltx_wizard.core.proc.stop import Graces

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
    """Run `argv` through core/proc's line streaming; returns (exit code, what was parsed).
    Cancelling stops the process group. The command and its output are appended to `log` without
    following a link (checked inside `root`, the run folder); a write that fails (a full disk)
    stops the script and is one WizardError naming the log."""
    parser = ProgressParser()

    def on_line(line: str) -> None:
        if parser.feed_line(line, time.monotonic()):
            on_progress(parser)

    env = {**env, **PROGRESS_ENV}
    code = await run_to_log(argv, cwd=cwd, env=env, log=log, on_line=on_line, graces=GRACES, root=root)
    return code, parser
