"""The `ltx-wizard plan` line prepare prints last, rendered from what this prepare used, so it runs
as printed: the checkout whose recipe was read (--trainer-root), the GPU source the command was
given (--simulate, --from-csv, --vram-gb: without it a box with no NVIDIA GPU is refused), the
models (named when found, else FILE and DIR, said so), and the dataset's own arguments.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Sequence

from ltx_wizard.core.base.records import record
from ltx_wizard.core.prepare.request import PrepareResult

PROGRAM = "ltx-wizard"  # as the other printed next steps name it (core/plan/next_steps.py)


@record
class Models:
    checkpoint: Path
    text_encoder: Path
    video_vae: Path | None = None  # a split pack's VAEs, when the checkpoint is one
    audio_vae: Path | None = None


@record
class PlanLine:
    argv: tuple[str, ...]
    runnable: bool  # False: FILE and DIR stand where the models go (none was found)
    why: str = ""  # when not runnable: what to put there

    def text(self) -> str:
        return shlex.join(self.argv)


def plan_line(result: PrepareResult, gpu_args: Sequence[str], models: Models | None) -> PlanLine:
    """The plan's command for this prepared dataset."""
    argv = [PROGRAM, "plan"]
    if result.trainer_root is not None:
        argv += ["--trainer-root", str(result.trainer_root)]
    argv += list(gpu_args)
    if models is not None:
        argv += ["--checkpoint", str(models.checkpoint), "--text-encoder", str(models.text_encoder)]
        for flag, vae in (("--video-vae", models.video_vae), ("--audio-vae", models.audio_vae)):
            argv += [flag, str(vae)] if vae is not None else []
    else:
        argv += ["--checkpoint", "FILE", "--text-encoder", "DIR"]
    argv += result.plan_args()
    if models is not None:
        return PlanLine(argv=tuple(argv), runnable=True)
    return PlanLine(
        argv=tuple(argv),
        runnable=False,
        why="no LTX-2 checkpoint with a matching Gemma text encoder was found in the usual model "
        "folders (`ltx-wizard discover` lists what it searched): put your checkpoint file for "
        "FILE and your Gemma folder for DIR",
    )


def gpu_source_args(simulate: str | None, from_csv: str | None, vram_gb: float | None) -> list[str]:
    """The GPU source a later command needs to see the GPUs this prepare was given."""
    args: list[str] = []
    if simulate:
        args += ["--simulate", simulate]
    elif from_csv:
        args += ["--from-csv", str(Path(from_csv).expanduser().resolve())]
    if vram_gb is not None:
        args += ["--vram-gb", f"{vram_gb:g}"]
    return args
