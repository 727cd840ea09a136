"""The one process that renders the whole tournament (issue 44, Deliver 8): trainer_side/
tournament_render.py in the trainer's environment, which loads the model once and renders every row
through the trainer's own validation; on simulated GPUs, the stand-in the StandIn names.
Here: its command, its arguments, and the reasons it gives for a row it could not render."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence

from ltx_wizard.core.base.stand_in import StandIn
from ltx_wizard.core.evaluation.job import Command
from ltx_wizard.core.evaluation.trainer_command import LOG_ENV, trainer_command

# run by its path, never imported (the import contract trainer-side-apart)
SCRIPT = Path(__file__).resolve().parents[2] / "trainer_side" / "tournament_render.py"
_FAILED = re.compile(r"tournament_render: ([a-z0-9_-]+): failed: (.+)")


def program_command(run_dir: Path, stand_in: StandIn | None) -> Command:
    """argv up to the program, where it runs and its environment: the trainer's own (its folder
    and the GPUs its launch names) through `uv run python`, as the run's launch runs the trainer;
    a stand-in's on simulated GPUs. UsageError where the run records no launch to borrow."""
    if stand_in is not None:
        argv, env = stand_in.compare(SCRIPT, [])
        return Command(argv, str(run_dir), {**env, **LOG_ENV})
    trainer, _simulated = trainer_command(run_dir)
    # the launch's own uv where it starts with one (production_choice.py takes the same)
    uv = trainer.argv[0] if Path(trainer.argv[0]).name == "uv" else "uv"
    return Command([uv, "run", "python", str(SCRIPT)], trainer.cwd, trainer.env)


def program_argv(
    program: Command,
    config: Path,
    renders_dir: Path,
    rows: Sequence[tuple[str, Path | None]],
    loss: Sequence[str] = (),
) -> list[str]:
    """The program's whole argv: the held-out loss's options where it computes one (`loss`), then
    each row NAME (the base model) or NAME=CHECKPOINT."""
    named = [name if checkpoint is None else f"{name}={checkpoint}" for name, checkpoint in rows]
    return [*program.argv, "--config", str(config), "--out-dir", str(renders_dir), *loss, *named]


def row_failures(log_text: str) -> dict[str, str]:
    """The reason the program gave for each row it could not render, by row name."""
    found = {}
    for line in log_text.splitlines():
        match = _FAILED.search(line)
        if match:
            found[match.group(1)] = match.group(2).strip()[:400]
    return found
