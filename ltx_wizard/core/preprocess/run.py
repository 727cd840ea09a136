"""Run one preprocessing step as a child process, its output logged and its bars parsed: the
trainer's script with the plan's options (run_script), for every step alike.

Started through core/proc (argument lists, never a shell; its own session, tagged, registered),
so a cancel or a signal to the wizard stops the script and its data-loader workers together by
the one stop rule, and nothing runs on after the wizard.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping

from ltx_wizard.core.io.child_log import run_to_log
from ltx_wizard.core.preprocess.preprocess_progress import PROGRESS_ENV, ProgressParser
from ltx_wizard.core.proc.stop import Graces
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.stand_in import StandIn
from ltx_wizard.core.preprocess.preprocess_command import SCRIPT_REL, command, preprocess_args, script_options

if TYPE_CHECKING:  # the record that says what to run
    from ltx_wizard.core.preprocess.preprocess_state import PreprocessState

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


async def run_script(
    run_dir: Path,
    state: PreprocessState,
    dataset: Path,
    output: Path,
    log: Path,
    env: Mapping[str, str] | None,
    on_progress: Callable[[ProgressParser], None],
    *,
    overwrite: bool,
    stand_in: StandIn | None,
) -> tuple[int, ProgressParser]:
    """The trainer's process_dataset.py (or the stand-in of a simulated run) on `dataset` into
    `output`, with the plan's options. `overwrite` only for the run's own folders (<run>/overfit,
    <run>/holdout), which the skill regenerates rather than trusts (a re-plan may have changed
    the bucket), never for the user's data root."""
    script = state.trainer_dir / SCRIPT_REL
    args = preprocess_args(state.spec, dataset, output, script_options(script), overwrite=overwrite)
    if state.simulate and stand_in is None:
        raise UsageError(
            "this run was planned for simulated GPUs: its preprocessing runs only with --simulate PRESET"
        )
    argv, extra = command(
        state.trainer_dir, args, uv=shutil.which("uv"), stand_in=stand_in if state.simulate else None
    )
    child_env = {**(os.environ if env is None else env), **extra}
    return await run_logged(
        argv, cwd=state.trainer_dir, env=child_env, log=log, on_progress=on_progress, root=run_dir
    )
