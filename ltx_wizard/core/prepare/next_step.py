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
from ltx_wizard.core.prepare.prepare_request import PlanInputs

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


# The plan's flag for each field prepare hands on, in the order the line gives them
# (commands/plan.py: --dataset fills data_root; a test parses the line back into the same fields)
DATASET_FLAGS = (
    ("data_root", "--dataset"),
    ("workspace", "--workspace"),
    ("run_name", "--run-name"),
    ("recipe", "--recipe"),
    ("resolution_buckets", "--resolution-buckets"),
    ("lora_trigger", "--lora-trigger"),
    ("video_only", "--video-only"),
)


def dataset_args(inputs: PlanInputs) -> list[str]:
    """The plan's arguments for this dataset, from its fields (models and checkout apart)."""
    args: list[str] = []
    for name, flag in DATASET_FLAGS:
        value = getattr(inputs, name)
        if value is True:
            args.append(flag)
        elif value not in (None, False, ""):
            args += [flag, str(value)]
    return args


def plan_line(inputs: PlanInputs, gpu_args: Sequence[str], models: Models | None) -> PlanLine:
    """The plan's command for this prepared dataset."""
    argv = [PROGRAM, "plan"]
    if inputs.trainer_root is not None:
        argv += ["--trainer-root", str(inputs.trainer_root)]
    argv += list(gpu_args)
    if models is not None:
        argv += ["--checkpoint", str(models.checkpoint), "--text-encoder", str(models.text_encoder)]
        for flag, vae in (("--video-vae", models.video_vae), ("--audio-vae", models.audio_vae)):
            argv += [flag, str(vae)] if vae is not None else []
    else:
        argv += ["--checkpoint", "FILE", "--text-encoder", "DIR"]
    argv += dataset_args(inputs)
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
