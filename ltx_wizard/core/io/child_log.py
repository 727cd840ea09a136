"""A child of core/proc whose output goes to a log file of the run folder: the one owner of the
pair "open the log for append, then stream the child into it" that prepare's scripts and the
preprocessing step share. core/proc streams to a `write` callable and may not open files (it sits
below this package); opening the log safely (no link followed, inside the run folder) and saying a
full disk in one line are this package's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Mapping, Sequence

from ltx_wizard.core.io.safe_fs import open_append, write_all
from ltx_wizard.core.proc.lines import run_logged
from ltx_wizard.core.proc.stop import DEFAULT_GRACES, Graces


async def run_to_log(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    log: Path,
    on_line: Callable[[str], None] = lambda line: None,
    graces: Graces = DEFAULT_GRACES,
    root: Path | None = None,
) -> int:
    """Run `argv` through core/proc's line streaming (its own session, tagged, registered): the
    command and its output appended to `log` (opened without following a link, checked inside
    `root` when given), its lines handed to `on_line`. Returns the exit code; a write that fails
    (a full disk) stops the child and is one WizardError naming the log."""
    with open_append(log, root=root, binary=True) as sink:  # written through its fd, unbuffered
        return await run_logged(
            argv,
            cwd=cwd,
            env=env,
            write=lambda data: write_all(sink.fileno(), data, log),
            on_line=on_line,
            graces=graces,
        )
