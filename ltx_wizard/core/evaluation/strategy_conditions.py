"""The conditions a run's mode is trained with, read off its `training_strategy`, for an evaluation
whose config.yaml validates without media (the plan's default when no --validation-media is given:
each sample's `conditions` removed, core/validation/validation_choice.py).

The trainer trains a conditioned mode on each sample's own inputs: frame 0 of its clip
(`first_frame`), its reference latents (`reference`), its own sound kept clean (audio not
generated), its clip kept clean (video not generated). Those come from the dataset row, so the
evaluation feeds each prompt its row's own file through the validation condition the trainer
takes for it (ltx_trainer/config.py: FirstFrameConditionConfig, ReferenceConditionConfig,
AudioToVideoConditionConfig, VideoToAudioConditionConfig), with its media left blank here and
filled per prompt (eval_config.sample_conditions). Mirrors the training side's condition types
(ltx_trainer/training_strategies/flexible.py ConditionConfig, ModalityConfig.is_generated) and
the legacy IC-LoRA strategy (video_to_video: a reference per sample).
"""

from __future__ import annotations

from typing import Any, Mapping

from ltx_wizard.core.io.trainer_config import trainer_config

BLANK = ""  # a media key the prompt's own row fills
# The training reference's geometry keys the validation reference takes too: config.py's
# ReferenceConditionConfig says they must mirror the training side's.
_REFERENCE_KEYS = (
    "layout",
    "strata_slot",
    "strata_f_lim",
    "source_phase",
    "source_id",
    "phase_scale",
    "sidecar_margin_pixels",
    "slot_embedding",
    "slot_index",
)


def _strategy(config: Mapping[str, Any]) -> Mapping[str, Any]:
    return trainer_config(config).training_strategy or {}


def _modality(strategy: Mapping[str, Any], name: str) -> Mapping[str, Any] | None:
    block = strategy.get(name)
    return block if isinstance(block, Mapping) else None


def _trained(strategy: Mapping[str, Any], name: str) -> list[Mapping[str, Any]]:
    block = _modality(strategy, name)
    conditions = block.get("conditions") if block is not None else None
    return [c for c in conditions if isinstance(c, Mapping)] if isinstance(conditions, list) else []


def strategy_kinds(config: Mapping[str, Any]) -> set[str]:
    """Every condition type the strategy trains with (an audio block's `reference` named
    `reference_audio`), and `audio_to_video` / `video_to_audio` for a modality
    kept clean while the other is generated."""
    strategy = _strategy(config)
    if strategy.get("name") == "video_to_video":
        return {"reference"}
    kinds = {str(c.get("type", "")) for c in _trained(strategy, "video")}
    for cond in _trained(strategy, "audio"):  # an audio reference is another mode (pipeline_modes)
        kinds.add("reference_audio" if cond.get("type") == "reference" else str(cond.get("type", "")))
    video, audio = _modality(strategy, "video"), _modality(strategy, "audio")
    if video is not None and audio is not None:
        if video.get("is_generated") and audio.get("is_generated") is False:
            kinds.add("audio_to_video")
        if audio.get("is_generated") and video.get("is_generated") is False:
            kinds.add("video_to_audio")
    return kinds - {""}


def strategy_conditions(config: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The validation conditions that feed a sample what the strategy trains it on, media blank:
    a first frame, a reference video, the clip's own sound or its own picture. Conditions no row
    can fill this way (a prefix's length, a mask, a crop) are left to pipeline_modes to name."""
    strategy = _strategy(config)
    kinds = strategy_kinds(config)
    out: list[dict[str, Any]] = []
    # an IC-LoRA recipe's first frame (probability 0.2) is an augmentation: its shipped validation
    # samples give the reference alone, so the evaluation does too
    if "first_frame" in kinds and "reference" not in kinds:
        out.append({"type": "first_frame", "image_or_video": BLANK})
    if "reference" in kinds:
        trained = next((c for c in _trained(strategy, "video") if c.get("type") == "reference"), {})
        extra = {k: trained[k] for k in _REFERENCE_KEYS if k in trained}
        out.append({"type": "reference", "video": BLANK, **extra})
    if "audio_to_video" in kinds:
        out.append({"type": "audio_to_video", "audio": BLANK})
    if "video_to_audio" in kinds:
        out.append({"type": "video_to_audio", "video": BLANK})
    return out
