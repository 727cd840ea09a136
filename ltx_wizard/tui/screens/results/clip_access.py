"""A render, seen or taken off the box: a terminal video player where one is installed (the App
is suspended while it plays, then restored), and the `scp` line that copies the renders and the
checkpoint they were made with to the machine the user's SSH session comes from. No server, no
port: nothing listens.
"""

from __future__ import annotations

import getpass
import os
import shlex
import shutil
from collections.abc import Sequence
from pathlib import Path

# Players that draw video in the terminal itself: mpv's true-colour text output, timg (Kitty,
# Sixel or half-blocks, whatever the terminal has).
PLAYERS = (("mpv", ["--vo=tct", "--really-quiet"]), ("timg", ["--loops=1"]))


def player(path: Path) -> list[str] | None:
    """The command that plays `path` in this terminal, or None when no player is installed."""
    for name, options in PLAYERS:
        found = shutil.which(name)
        if found:
            return [found, *options, str(path)]
    return None


def no_player_text() -> str:
    return (
        "no terminal video player found (install mpv or timg to play here); "
        "copy the file off the box with the scp line"
    )


def scp_line(paths: Path | Sequence[Path], env: dict[str, str] | None = None) -> str:
    """`scp user@host:/path ... .` to run on the user's own machine: one command for every file
    (`-r` where one is a folder). Over SSH the host is the address this session came in on
    (SSH_CONNECTION's third field) and its port; elsewhere `<this-box>`."""
    env = dict(os.environ) if env is None else env
    items = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    parts = env.get("SSH_CONNECTION", "").split()
    host = parts[2] if len(parts) == 4 else "<this-box>"
    port = parts[3] if len(parts) == 4 and parts[3] != "22" else None
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "you"
    options = [*(["-P", port] if port else []), *(["-r"] if any(Path(p).is_dir() for p in items) else [])]
    return shlex.join(["scp", *options, *(f"{user}@{host}:{Path(p).resolve()}" for p in items), "."])


def evaluated_checkpoint(run_dir: Path) -> Path | None:
    """The LoRA checkpoint the evaluation rendered with (its job record), while it is there."""
    from ltx_wizard.core.evaluation.job import JOB_FILE

    job = JOB_FILE.quietly(run_dir)
    path = Path(job.checkpoint) if job is not None else None
    return path if path is not None and path.is_file() else None
