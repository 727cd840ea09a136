"""How a trial starts the trainer: the argv before CONFIG, where, with what environment, and how
its times read (a stand-in runs compressed); and `--trainer-cmd` split into that argv."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ltx_wizard.core.base.errors import UsageError


def split_trainer_cmd(text: str) -> list[str]:
    """`--trainer-cmd "…"` split like a shell (never run through one); bad quoting is bad input."""
    try:
        parts = shlex.split(text)
    except ValueError as exc:
        raise UsageError(f"--trainer-cmd cannot be split: {exc}") from None
    if not parts:
        raise UsageError("--trainer-cmd is empty")
    return parts


@dataclass
class TrialCommand:
    """How to start the trainer: argv before CONFIG, where, and extra environment."""

    prefix: list[str]
    cwd: Path | None = None
    env: dict[str, str] = field(default_factory=dict)
    time_scale: float = 1.0  # a stand-in (base/stand_in.py) runs compressed; times are scaled back
    # when a step line (or training's start, a validation saved) was printed, in the trainer's own
    # seconds (a stand-in's clock, keyed as base/stand_in.py names the moments); None, or no
    # answer for a moment: when the line arrived, scaled back
    step_clock: Callable[[str], float | None] | None = None
    quiet_flag: str = "--disable-progress-bars"
