"""The model files an entry point needs beyond the run's own, found beside the run's checkpoint.

The trainer trains on the `dev` checkpoint; ic_lora runs the distilled one, and the two-stage
pipelines add a spatial upsampler (and a2vid_two_stage the distilled LoRA for its second stage).
The releases name them (LTX-2 README "Full model list", MODELS-LTX-2.3.md), and `hf download`
keeps a release's folder layout: a split pack's transformer sits in `diffusion_models/`, its
upscalers in `latent_upscale_models/`, its LoRAs in `loras/`; the unified 2.3 files sit side by
side. So the checkpoint's folder and those sub-folders of it are searched, and of its parent when
the checkpoint sits in one of them (one level each, no link followed); the newest name wins when
several match (numbers compared as numbers). Nothing is downloaded here.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Mapping

from ltx_wizard.core.evaluation.pipeline_modes import (
    DISTILLED_CHECKPOINT,
    DISTILLED_LORA,
    SPATIAL_UPSAMPLER,
    PipelineMode,
)
from ltx_wizard.core.io.trainer_config import trainer_config

FLAGS = {SPATIAL_UPSAMPLER: "--spatial-upsampler-path", DISTILLED_LORA: "--distilled-lora"}
_SUBFOLDERS = ("diffusion_models", "latent_upscale_models", "loras")
# What each file is called in the releases, for the message when it is missing.
_NAMED = {
    SPATIAL_UPSAMPLER: "the spatial upscaler x2 (ltx-2.3-spatial-upscaler-x2-1.1.safetensors; "
    "LTX-2.5: latent_upscale_models/ltx-2.5-latent-spatial-upscaler-x2-"
    "bf16-1.0.safetensors)",
    DISTILLED_LORA: "the distilled LoRA (ltx-2.3-22b-distilled-lora-384-1.1.safetensors; "
    "LTX-2.5: loras/ltx-2.5-22b-distilled-lora-450-bf16.safetensors)",
    DISTILLED_CHECKPOINT: "the distilled checkpoint (ltx-2.3-22b-distilled-1.1.safetensors; "
    "LTX-2.5: diffusion_models/ltx-2.5-22b-distilled-transformer-"
    "bf16.safetensors)",
}


def _folders(model: Path) -> list[Path]:
    out: list[Path] = []
    bases = [model.parent] + ([model.parent.parent] if model.parent.name in _SUBFOLDERS else [])
    for base in bases:
        for folder in (base, *(base / sub for sub in _SUBFOLDERS)):
            if folder not in out and folder.is_dir() and not folder.is_symlink():
                out.append(folder)
    return out


def _matches(role: str, name: str, split: bool) -> bool:
    name = name.lower()
    if not name.endswith(".safetensors"):
        return False
    if role == SPATIAL_UPSAMPLER:
        return "spatial" in name and ("upscaler" in name or "upsampler" in name) and "x2" in name
    if role == DISTILLED_LORA:
        return "distilled" in name and "lora" in name
    # the distilled checkpoint: a split pack's transformer, or a unified file
    return "distilled" in name and "lora" not in name and ("transformer" in name) == split


def find(model: Path, role: str, split: bool) -> Path | None:
    found = [
        entry
        for folder in _folders(model)
        for entry in sorted(folder.iterdir())
        if entry.is_file() and not entry.is_symlink() and entry != model and _matches(role, entry.name, split)
    ]
    return max(found, key=_version_order) if found else None


def _version_order(path: Path) -> list[Any]:
    """Names compared with their numbers as numbers: `...-distilled-1.1` after `...-distilled`."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", path.stem)]


def extras(config: Mapping[str, Any], mode: PipelineMode) -> tuple[dict[str, Path], str | None]:
    """{role: file} for the mode's needs, or (found so far, why the rest is missing)."""
    keys = trainer_config(config).model
    model = Path(keys.model_path or "")
    split = bool(keys.video_vae_path)
    found: dict[str, Path] = {}
    missing = []
    for role in mode.needs:
        path = find(model, role, split)
        if path is None:
            missing.append(_NAMED[role])
        else:
            found[role] = path
    if missing:
        return found, (
            f"{mode.module} ({mode.title}) needs {' and '.join(missing)}: not found "
            f"beside {model} (download the release's file into that folder)"
        )
    return found, None
