"""The `scp` line that copies a file or folder of this box to the machine the user's SSH session
comes from (the Results screen's renders, `compare`'s folder). No server, no port: nothing listens.
"""

from __future__ import annotations

import getpass
import os
import shlex
from pathlib import Path


def scp_line(path: Path, env: dict[str, str] | None = None, *, folder: bool = False) -> str:
    """`scp [-r] user@host:/path .` to run on the user's own machine. Over SSH the host is the
    address this session came in on (SSH_CONNECTION's third field) and its port; elsewhere
    `<this-box>`. `folder`: the whole folder (-r)."""
    env = dict(os.environ) if env is None else env
    parts = env.get("SSH_CONNECTION", "").split()
    host = parts[2] if len(parts) == 4 else "<this-box>"
    port = parts[3] if len(parts) == 4 and parts[3] != "22" else None
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "you"
    target = f"{user}@{host}:{Path(path).resolve()}"
    return shlex.join(["scp", *(["-r"] if folder else []), *(["-P", port] if port else []), target, "."])
