"""A render, seen or taken off the box: a terminal video player where one is installed (the App
is suspended while it plays, then restored), and the `scp` line that copies the renders and the
checkpoint they were made with to the machine the user's SSH session comes from. No server, no
port: nothing listens.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ltx_wizard.core.base.scp_line import scp_line  # the pure part, shared with `compare`

__all__ = ["PLAYERS", "evaluated_checkpoint", "no_player_text", "player", "scp_line"]

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


def evaluated_checkpoint(run_dir: Path) -> Path | None:
    """The LoRA checkpoint the evaluation rendered with (its job record), while it is there."""
    from ltx_wizard.core.evaluation.job import JOB_FILE

    job = JOB_FILE.quietly(run_dir)
    path = Path(job.checkpoint) if job is not None else None
    return path if path is not None and path.is_file() else None
