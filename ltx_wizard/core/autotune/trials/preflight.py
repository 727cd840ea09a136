"""Before the first trial: can the trainer command start at all?

A missing `uv`, a typo in --trainer-cmd or a script without its execute bit would otherwise fail
inside the trial launcher as an OSError; here each is one line that says what to do (exit 2).
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path
from typing import Mapping, Sequence

from ltx_wizard.core.base.errors import UsageError

UV_HINT = (
    "install uv (https://docs.astral.sh/uv/getting-started/installation/) and run "
    "`uv sync` in your LTX-2 checkout, or pass --trainer-cmd"
)


def require_runnable(
    prefix: Sequence[str], cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> str:
    """The resolved program of `prefix`; UsageError when it cannot be started."""
    if not prefix:
        raise UsageError("the trainer command is empty: pass --trainer-cmd")
    if cwd is not None and not Path(cwd).is_dir():
        raise UsageError(
            f"the trainer's folder {cwd} does not exist: pass --trainer-root with your LTX-2 checkout"
        )
    program = str(prefix[0])
    search = (env or os.environ).get("PATH", os.defpath)
    if os.sep not in program:
        found = shutil.which(program, path=search)
        if found is None:
            if program == "uv":
                raise UsageError(f"uv is not on PATH, and the trainer runs through it: {UV_HINT}")
            raise UsageError(f"trainer command {program!r} is not on PATH: check --trainer-cmd")
        return found
    path = Path(program) if os.path.isabs(program) else Path(cwd or os.getcwd()) / program
    try:
        st = os.stat(path)
    except OSError:
        raise UsageError(f"trainer command {program} does not exist: check --trainer-cmd") from None
    if not stat.S_ISREG(st.st_mode):
        raise UsageError(f"trainer command {program} is not a file: check --trainer-cmd")
    if not os.access(path, os.X_OK):
        raise UsageError(
            f"trainer command {program} is not executable: `chmod +x {program}`, "
            "or put its interpreter first in --trainer-cmd"
        )
    return str(path)
