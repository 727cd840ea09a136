"""The `scp` line that copies a file or folder of this box to the machine the user's SSH session
comes from (the Results screen's renders, `compare`'s folder). No server, no port: nothing listens.
"""

from __future__ import annotations

import getpass
import os
import shlex
from collections.abc import Sequence
from pathlib import Path


def scp_line(paths: Path | Sequence[Path], env: dict[str, str] | None = None, *, folder: bool = False) -> str:
    """`scp [-r] user@host:/path ... .` to run on the user's own machine: one command for one path or
    several (the Results screen's renders and their checkpoint). Over SSH the host is the address
    this session came in on (SSH_CONNECTION's third field) and its port; elsewhere `<this-box>`.
    `folder`: a whole folder among them (-r)."""
    env = dict(os.environ) if env is None else env
    items = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    parts = env.get("SSH_CONNECTION", "").split()
    host = parts[2] if len(parts) == 4 else "<this-box>"
    port = parts[3] if len(parts) == 4 and parts[3] != "22" else None
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "you"
    targets = [f"{user}@{host}:{Path(path).resolve()}" for path in items]
    return shlex.join(["scp", *(["-r"] if folder else []), *(["-P", port] if port else []), *targets, "."])
