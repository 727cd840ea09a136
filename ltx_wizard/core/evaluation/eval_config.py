"""`eval-config.yaml`: the run's config.yaml made into a validate-only run (the skill's Step 1).

A copy of config.yaml, every comment kept, with: `model.load_checkpoint` the chosen LoRA (none for
the like-for-like render without it: the trainer then starts a fresh LoRA, whose B matrices are
zero, ltx_trainer/trainer.py `_setup_lora` init_lora_weights=True, so step 0 renders the base
model), `optimization.steps: 1`, `validation.interval: 1` with `skip_initial_validation: false`
(validation fires at step 0, trainer.py LtxvTrainer.train), the samples with the mode's
conditions and seed 42, `checkpoints.interval: null` and `no_resume: true` (the LoRA's weights, not
its optimizer or step, trainer.py `_resolve_resume_state`), `output_dir` the run's
`outputs/eval`, and W&B and the Hub push off (an evaluation uploads nothing). Everything else
(quantization, video_dims, frame rate, guidance, generate_audio) stays the run's, so the renders
come from the stack the LoRA was trained in.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, Mapping, Sequence

from ltx_wizard.core.io.run_folder import OUTPUTS_DIR
from ltx_wizard.core.evaluation.prompts import EvalPrompt
from ltx_wizard.core.evaluation.strategy_conditions import BLANK, strategy_conditions
from ltx_wizard.core.io.trainer_config import trainer_config
from ltx_wizard.core.io.yaml_patch import YamlPatchError, load_yaml, patch_yaml_text
from ltx_wizard.core.validation import patch as vp
from ltx_wizard.core.base.errors import UsageError

EVAL_CONFIG = "eval-config.yaml"
BASE_CONFIG = "eval-config.base.yaml"  # the same without the LoRA
EVAL_OUTPUT_REL = Path(OUTPUTS_DIR.rel) / "eval"
# Which dataset column fills which media key of a condition (ltx_trainer/config.py, the
# ValidationCondition types; the columns are process_dataset.py's roles).
_ROLE_FOR = {
    ("first_frame", "image_or_video"): "video",
    ("prefix", "video"): "video",
    ("prefix", "audio"): "audio",
    ("suffix", "video"): "video",
    ("suffix", "audio"): "audio",
    ("spatial_crop", "video"): "video",
    ("mask", "video"): "video",
    ("mask", "audio"): "audio",
    ("reference", "video"): "reference_video",
    ("reference", "audio"): "reference_audio",
    ("video_to_audio", "video"): "video",
    ("audio_to_video", "audio"): "audio",
}
# A row without its own audio file: the clip's own sound, read from the video as the trainer's
# preprocessing reads it (scripts/process_videos.py MediaDataset._extract_audio of the video path;
# validation_runner.py _encode_audio and ltx-pipelines' decode_audio_from_file read a video's
# sound as well).
_FALLBACK_ROLE = {"audio": "video"}


def _mask_role(cond: Mapping[str, Any]) -> str:
    return "audio_mask" if cond.get("audio") is not None else "video_mask"


def template_conditions(config: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The conditions the run validates with: the first sample's that has any (the shape the plan
    wrote for the mode), else the legacy `images` / `reference_videos` lists as the trainer
    converts them (config.py ValidationConfig.convert_legacy_format)."""
    validation = trainer_config(config).validation
    for sample in validation.samples or []:
        conditions = sample.get("conditions")
        if isinstance(conditions, list) and conditions:
            return [dict(c) for c in conditions if isinstance(c, Mapping)]
    found: list[dict[str, Any]] = []
    images = validation.images
    if images:
        found.append({"type": "first_frame", "image_or_video": str(images[0])})
    references = validation.reference_videos
    if references:
        found.append({"type": "reference", "video": str(references[0])})
    return found


def run_conditions(config: Mapping[str, Any]) -> list[dict[str, Any]]:
    """What the evaluation conditions each prompt with: the run's own validation conditions,
    else (config.yaml validates without media) those its training strategy trains with, to be
    filled from each prompt's own row (strategy_conditions.py)."""
    return template_conditions(config) or strategy_conditions(config)


def from_rows_only(config: Mapping[str, Any]) -> bool:
    """The run has no conditioning file of its own: every condition comes from a dataset row."""
    return not template_conditions(config) and bool(strategy_conditions(config))


def _row_file(media: Mapping[str, str], role: str) -> str | None:
    found = media.get(role)
    if not found and role in _FALLBACK_ROLE:
        found = media.get(_FALLBACK_ROLE[role])
    return found or None


def sample_conditions(
    template: Sequence[Mapping[str, Any]], media: Mapping[str, str]
) -> list[dict[str, Any]]:
    """The template's conditions with each media key taken from the prompt's own row where it has
    that column (the clip's first frame, its reference, its mask, its sound), else the run's own
    file; a condition left without a file (no row, no file of the run's) is dropped."""
    out = []
    for shipped in template:
        cond = copy.deepcopy(dict(shipped))
        kind = str(cond.get("type", ""))
        for key in ("image_or_video", "video", "audio", "mask"):
            if not isinstance(cond.get(key), str):
                continue
            role = _mask_role(cond) if (kind, key) == ("mask", "mask") else _ROLE_FOR.get((kind, key))
            found = _row_file(media, role) if role else None
            if found:
                cond[key] = found
        if BLANK not in (cond.get(k) for k in ("image_or_video", "video", "audio", "mask")):
            out.append(cond)
    return out


def samples(config: Mapping[str, Any], prompts: Sequence[EvalPrompt]) -> list[dict[str, Any]]:
    """validation.samples of the evaluation, in the order the renders are numbered."""
    template = run_conditions(config)
    out = []
    for prompt in prompts:
        sample: dict[str, Any] = {"prompt": prompt.text}
        conditions = sample_conditions(template, prompt.media)
        if conditions:
            sample["conditions"] = conditions
        sample["seed"] = prompt.seed
        out.append(sample)
    return out


def changes(
    run_dir: Path,
    checkpoint: Path | None,
    dims: tuple[int, int, int] | None = None,
    *,
    out_rel: Path = EVAL_OUTPUT_REL,
    inference_steps: int | None = None,
) -> dict[str, object]:
    """The scalar patches of the skill's Step 1 (the samples are spliced separately); `dims`
    replaces validation.video_dims (the skill's retry after an out-of-memory render, or the
    tournament's short clips), `inference_steps` validation.inference_steps (ltx_trainer/config.py
    ValidationConfig, both), `out_rel` the output_dir (the tournament renders beside compare's
    records, never into outputs/eval)."""
    extra: dict[str, object] = {"validation.video_dims": list(dims)} if dims is not None else {}
    if inference_steps is not None:
        extra["validation.inference_steps"] = inference_steps
    return {
        **extra,
        "model.load_checkpoint": str(checkpoint) if checkpoint is not None else None,
        "optimization.steps": 1,
        "validation.interval": 1,
        "validation.skip_initial_validation": False,
        "checkpoints.interval": None,
        "checkpoints.no_resume": True,
        "output_dir": str(Path(run_dir).resolve() / out_rel),
        "wandb.enabled": False,
        "hub.push_to_hub": False,
    }


def render(
    config_text: str,
    run_dir: Path,
    checkpoint: Path | None,
    prompts: Sequence[EvalPrompt],
    dims: tuple[int, int, int] | None = None,
    *,
    out_rel: Path = EVAL_OUTPUT_REL,
    inference_steps: int | None = None,
) -> str:
    """eval-config.yaml's text. Raises UsageError when config.yaml cannot be patched."""
    scalars = changes(run_dir, checkpoint, dims, out_rel=out_rel, inference_steps=inference_steps)
    try:
        config = load_yaml(config_text)
        wanted = samples(config, prompts)
        # the scalars first: they make the validation section when config.yaml has none
        text = vp.flow_samples(patch_yaml_text(config_text, scalars), wanted)
        written = trainer_config(load_yaml(text), EVAL_CONFIG).validation.samples
    except YamlPatchError as exc:
        raise UsageError(f"config.yaml cannot be made into {EVAL_CONFIG}: {exc}") from None
    if written != wanted:
        raise UsageError(
            f"config.yaml cannot be made into {EVAL_CONFIG}: its validation.samples "
            "could not be written; check config.yaml"
        )
    return text


def video_dims(config: Mapping[str, Any]) -> tuple[int, int, int]:
    """The renders' size: the run's validation.video_dims, else the trainer's default."""
    dims = trainer_config(config).validation.video_dims
    if dims is not None and len(dims) == 3:
        return int(dims[0]), int(dims[1]), int(dims[2])
    return 960, 544, 89  # ltx_trainer/config.py ValidationConfig.video_dims default


def smaller_dims(dims: tuple[int, int, int]) -> tuple[int, int, int]:
    """The skill's one retry after an out-of-memory render: half the width and height, kept
    divisible by the VAE's 32 (validation_runner.py _validate_sample_geometry), frames kept."""
    width, height, frames = dims
    return max(32, width // 2 // 32 * 32), max(32, height // 2 // 32 * 32), frames
