"""Every key the wizard writes is a field of the trainer's schema, and the simulation knows no other.

REAL_FIELDS is read off the LTX-2 trainer's pydantic models (every one `extra="forbid"`), written
here so that the test needs no checkout:
- packages/ltx-trainer/src/ltx_trainer/config.py: LtxTrainerConfig, ModelConfig, LoraConfig,
  OptimizationConfig, AccelerationConfig, DataConfig, ValidationConfig, ValidationSample,
  CheckpointsConfig, HubConfig, WandbConfig, FlowMatchingConfig;
- packages/ltx-trainer/src/ltx_trainer/training_strategies/flexible.py: FlexibleStrategyConfig,
  ModalityConfig; text_to_video.py: TextToVideoConfig; video_to_video.py: VideoToVideoConfig.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from ltx_wizard.core.plan import config_gen
from ltx_wizard.core.tuning import schedule, stage_rules
from ltx_wizard.core.tuning.headroom import TrainSettings
from ltx_wizard.core.tuning.trial_config import trial_overrides
from ltx_wizard.core.autotune.outputs.tuned_config import STEPS_KEY
from ltx_wizard.core.dataset.sources import SHIPPED_T2V_STRATEGY, video_only_change
from ltx_wizard.core.gpu.tiers import Tier
from ltx_wizard.demo.lookalike_checkout import LOW_VRAM_TEXT, STANDARD_TEXT
from ltx_wizard.demo.sim import schema

REAL_FIELDS: dict[str, tuple[str, ...]] = {
    "": (
        "model",
        "lora",
        "training_strategy",
        "optimization",
        "acceleration",
        "data",
        "validation",
        "checkpoints",
        "hub",
        "flow_matching",
        "wandb",
        "seed",
        "output_dir",
    ),
    "model": (
        "model_path",
        "text_encoder_path",
        "video_vae_path",
        "audio_vae_path",
        "training_mode",
        "load_checkpoint",
    ),
    "lora": ("rank", "alpha", "dropout", "target_modules"),
    "optimization": (
        "learning_rate",
        "steps",
        "batch_size",
        "gradient_accumulation_steps",
        "max_grad_norm",
        "optimizer_type",
        "scheduler_type",
        "scheduler_params",
        "enable_gradient_checkpointing",
    ),
    "acceleration": (
        "mixed_precision_mode",
        "quantization",
        "load_text_encoder_in_8bit",
        "offload_optimizer_during_validation",
    ),
    "data": ("preprocessed_data_root", "num_dataloader_workers"),
    "validation": (
        "samples",
        "prompts",
        "negative_prompt",
        "images",
        "reference_videos",
        "reference_downscale_factor",
        "video_dims",
        "frame_rate",
        "seed",
        "inference_steps",
        "interval",
        "video_cfg_scale",
        "audio_cfg_scale",
        "video_stg_scale",
        "audio_stg_scale",
        "stg_blocks",
        "guidance_rescale",
        "video_modality_guidance_scale",
        "audio_modality_guidance_scale",
        "generate_audio",
        "generate_video",
        "skip_initial_validation",
        "include_reference_in_output",
    ),
    "validation.samples[]": ("prompt", "conditions", "video_dims", "seed"),
    "checkpoints": ("interval", "keep_last_n", "precision", "no_resume", "save_training_state"),
    "hub": ("push_to_hub", "hub_model_id"),
    "flow_matching": ("timestep_sampling_mode", "timestep_sampling_params"),
    "wandb": ("enabled", "project", "entity", "tags", "log_validation_videos"),
    "training_strategy[flexible]": ("name", "video", "audio"),
    "training_strategy[text_to_video]": (
        "name",
        "first_frame_conditioning_p",
        "with_audio",
        "audio_latents_dir",
    ),
    "training_strategy[video_to_video]": ("name", "first_frame_conditioning_p", "reference_latents_dir"),
    "training_strategy[flexible].video": ("is_generated", "latents_dir", "conditions"),
}
REAL_FIELDS["training_strategy[flexible].audio"] = REAL_FIELDS["training_strategy[flexible].video"]
# A modality's conditions (training_strategies/flexible.py *ConditionConfig) and a validation
# sample's (config.py *ConditionConfig), by `type`, in the trainer's field order.
REAL_FIELDS.update(
    {
        "condition[first_frame]": ("probability", "type"),
        "condition[prefix]": ("probability", "type", "temporal_boundary"),
        "condition[suffix]": ("probability", "type", "temporal_boundary"),
        "condition[spatial_crop]": ("probability", "type", "spatial_region"),
        "condition[mask]": ("probability", "type", "mask_dir"),
        "condition[reference]": ("type", "latents_dir", "probability"),
        "validation.condition[first_frame]": ("type", "image_or_video"),
        "validation.condition[prefix]": ("type", "video", "audio", "num_frames", "duration"),
        "validation.condition[suffix]": ("type", "video", "audio", "num_frames", "duration"),
        "validation.condition[spatial_crop]": ("type", "video", "spatial_region"),
        "validation.condition[mask]": ("type", "video", "audio", "mask"),
        "validation.condition[reference]": (
            "type",
            "video",
            "audio",
            "downscale_factor",
            "temporal_scale_factor",
            "include_in_output",
        ),
        "validation.condition[video_to_audio]": ("type", "video"),
        "validation.condition[audio_to_video]": ("type", "audio"),
    }
)


def known(dotted: str, strategy: str = "flexible") -> bool:
    """Is `dotted` (as the wizard patches it) a field path of the trainer's schema?"""
    *parents, last = dotted.split(".")
    if parents and parents[0] == "training_strategy":
        parents[0] = f"training_strategy[{strategy}]"
    return last in REAL_FIELDS.get(".".join(parents), ())


def _written_by_plan() -> set[str]:
    keys: set[str] = set()
    paths = dict(
        model_path=Path("/m.safetensors"),
        text_encoder_path=Path("/g"),
        data_root=Path("/d"),
        output_dir=Path("/o"),
    )
    for base in (STANDARD_TEXT, LOW_VRAM_TEXT):
        for mode in ("lora", "full"):
            for gpus, batch in ((1, None), (2, 8), (4, 3)):
                got = config_gen.compute_changes(
                    base,
                    training_mode=mode,
                    num_gpus=gpus,
                    effective_batch=batch,
                    video_vae_path=Path("/v.safetensors"),
                    audio_vae_path=Path("/a.safetensors"),
                    **paths,
                )
                keys |= set(got.changes)
    keys.add(video_only_change(SHIPPED_T2V_STRATEGY)[0])  # plan --video-only
    return keys


def _written_by_autotune() -> set[str]:
    keys = set(trial_overrides(Path("/run/overfit/.precomputed"), Path("/run/trials/1")))
    settings = TrainSettings(
        quantization="int8-quanto",
        optimizer_type="adamw8bit",
        batch_size=1,
        gradient_accumulation_steps=4,
        gradient_checkpointing=True,
        training_mode="lora",
        lora_rank=16,
    )
    ctx = schedule.Context(Tier.T40_60, 47.9, 22e9, subset_samples=4, allow_batch_change=True)
    for stage in schedule.STAGES:  # the winner is patched into config.yaml with the same keys
        keys |= set(stage_rules.describe(stage, settings, ctx)[1])
    keys.add(STEPS_KEY)  # an allowed batch change rescales the steps (autotune/outputs/tuned_config.py)
    return keys


def test_every_key_the_plan_writes_is_a_trainer_field():
    keys = _written_by_plan()
    assert {
        "model.model_path",
        "data.preprocessed_data_root",
        "output_dir",
        "training_strategy.audio",
        "model.video_vae_path",
    } <= keys
    assert [k for k in sorted(keys) if not known(k)] == []


def test_every_key_a_trial_config_writes_is_a_trainer_field():
    keys = _written_by_autotune()
    assert {"optimization.steps", "acceleration.quantization", "optimization.batch_size"} <= keys
    assert [k for k in sorted(keys) if not known(k)] == []


def test_a_made_up_key_is_caught():
    assert not known("validation.guidance_scale") and not known("training_strategy.with_audio")
    assert known("training_strategy.with_audio", "text_to_video")


@pytest.mark.parametrize("section", sorted(schema.SECTIONS))
def test_the_simulated_schema_has_exactly_the_trainer_fields(section):
    model = schema.SECTIONS[section]
    assert tuple(model.model_fields) == REAL_FIELDS[section]
    assert model.model_config.get("extra") == "forbid"


def _paths(data, prefix=""):
    for key, value in data.items():
        yield prefix + key
        if isinstance(value, dict):
            yield from _paths(value, f"{prefix}{key}.")
        if isinstance(value, list) and key == "samples":
            for sample in value:
                yield from (f"{prefix}{key}[].{k}" for k in sample)


@pytest.mark.parametrize("text", [STANDARD_TEXT, LOW_VRAM_TEXT], ids=["standard", "low-vram"])
def test_the_lookalike_configs_use_only_trainer_fields(text):
    paths = list(_paths(YAML(typ="safe").load(text)))
    assert "training_strategy.audio.latents_dir" in paths
    unknown = [p for p in paths if not known(p)]
    assert unknown == []
