"""The simulated trainer's config schema: the trainer's own field names, as strict as it is.

Every section forbids unknown keys, as the trainer's `ConfigBaseModel` (`extra="forbid"`) does,
so a key the wizard invents fails here as it would there. Field names and the validators that
matter to the wizard (paths that must exist, the strategy's data folders, LoRA for LoRA runs) are
mirrored from ltx_trainer/config.py and ltx_trainer/training_strategies/*.py; types stay loose
where the wizard never writes the field. The data folders come from the wizard's one copy of the
trainer's rule (core/dataset/sources.py), so a video-only data root under an audio config fails here
with the trainer's message.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Discriminator, Field, Tag, field_validator, model_validator

from ltx_wizard.core.dataset.sources import required_folders
from ltx_wizard.demo.sim.conditions import SECTIONS as CONDITION_SECTIONS
from ltx_wizard.demo.sim.conditions import Strict as _Strict
from ltx_wizard.demo.sim.conditions import TrainCondition, ValidationCondition


class ModelConfig(_Strict):
    model_path: str
    text_encoder_path: str | None = None
    video_vae_path: str | None = None
    audio_vae_path: str | None = None
    training_mode: Literal["lora", "full"] = "lora"
    load_checkpoint: str | None = None

    @field_validator("model_path")
    @classmethod
    def _model_path(cls, v: str) -> str:
        # mirrors ltx_trainer/config.py ModelConfig.validate_model_path
        if str(v).startswith(("http://", "https://")):
            raise ValueError(f"Model path cannot be a URL: {v}")
        if not Path(v).exists():
            raise ValueError(f"Model path does not exist: {v}")
        return v

    @field_validator("video_vae_path", "audio_vae_path")
    @classmethod
    def _component(cls, v: str | None) -> str | None:
        # mirrors ltx_trainer/config.py ModelConfig.validate_component_path
        if v is not None and not Path(v).is_file():
            raise ValueError(f"Model component path does not exist or is not a file: {v}")
        return v


class LoraConfig(_Strict):
    rank: int = Field(64, ge=2)
    alpha: int = Field(64, ge=1)
    dropout: float = Field(0.0, ge=0.0, le=1.0)
    target_modules: list[str] = ["to_k", "to_q", "to_v", "to_out.0"]


class _StrategyBase(_Strict):
    def data_folders(self) -> list[str]:
        return list(required_folders(self.model_dump()))


class TextToVideoConfig(_StrategyBase):
    name: Literal["text_to_video"] = "text_to_video"
    first_frame_conditioning_p: float = Field(0.1, ge=0.0, le=1.0)
    with_audio: bool = False
    audio_latents_dir: str = "audio_latents"


class VideoToVideoConfig(_StrategyBase):
    name: Literal["video_to_video"] = "video_to_video"
    first_frame_conditioning_p: float = Field(0.1, ge=0.0, le=1.0)
    reference_latents_dir: str = "reference_latents"


class ModalityConfig(_Strict):
    # mirrors ltx_trainer/training_strategies/flexible.py ModalityConfig
    is_generated: bool
    latents_dir: str
    conditions: list[TrainCondition] = []


class FlexibleStrategyConfig(_StrategyBase):
    name: Literal["flexible"] = "flexible"
    video: ModalityConfig | None = None
    audio: ModalityConfig | None = None

    @model_validator(mode="after")
    def _one_generated(self) -> "FlexibleStrategyConfig":
        # mirrors flexible.py FlexibleStrategyConfig.validate_at_least_one_generated
        if not any(m is not None and m.is_generated for m in (self.video, self.audio)):
            raise ValueError("At least one modality must have is_generated=true")
        # mirrors flexible.py FlexibleStrategyConfig.validate_audio_intrinsic_regions
        for cond in self.audio.conditions if self.audio is not None else []:
            if cond.type in ("first_frame", "spatial_crop"):
                raise ValueError(
                    f"Intrinsic condition '{cond.type}' is not supported for audio. "
                    "Audio supports: prefix, suffix, mask."
                )
        return self


def _strategy_tag(v: Any) -> str:
    # mirrors ltx_trainer/config.py _get_strategy_discriminator
    return v.get("name", "text_to_video") if isinstance(v, dict) else v.name


TrainingStrategyConfig = Annotated[
    Annotated[TextToVideoConfig, Tag("text_to_video")]
    | Annotated[VideoToVideoConfig, Tag("video_to_video")]
    | Annotated[FlexibleStrategyConfig, Tag("flexible")],
    Discriminator(_strategy_tag),
]


class OptimizationConfig(_Strict):
    learning_rate: float = 5e-4
    steps: int = Field(3000, ge=1)  # the trainer has no bound; a 0-step trial is still a bug
    batch_size: int = Field(2, ge=1)
    gradient_accumulation_steps: int = 1
    max_grad_norm: float = 1.0
    optimizer_type: Literal["adamw", "adamw8bit"] = "adamw"
    scheduler_type: Literal["constant", "linear", "cosine", "cosine_with_restarts", "polynomial", "step"] = (
        "linear"
    )
    scheduler_params: dict = {}
    enable_gradient_checkpointing: bool = False


class AccelerationConfig(_Strict):
    mixed_precision_mode: Literal["no", "fp16", "bf16"] | None = "bf16"
    # mirrors ltx_trainer/quantization.py QuantizationOptions
    quantization: (
        Literal["int8-quanto", "int4-quanto", "int2-quanto", "fp8-quanto", "fp8uz-quanto"] | None
    ) = None
    load_text_encoder_in_8bit: bool = False
    offload_optimizer_during_validation: bool = False


class DataConfig(_Strict):
    preprocessed_data_root: str
    num_dataloader_workers: int = Field(2, ge=0)

    @field_validator("preprocessed_data_root")
    @classmethod
    def _root(cls, v: str) -> str:
        # mirrors ltx_trainer/config.py DataConfig.validate_preprocessed_data_root
        path = Path(v).expanduser().resolve()
        if not path.exists():
            raise ValueError(f"Dataset path does not exist: {v}")
        if not path.is_dir():
            raise ValueError(f"Dataset path is not a directory: {v}")
        return str(path)


class ValidationSample(_Strict):
    prompt: str
    conditions: list[ValidationCondition] = []
    video_dims: tuple[int, int, int] | None = None
    seed: int | None = None


class ValidationConfig(_Strict):
    samples: list[ValidationSample] = []
    prompts: list[str] = []
    negative_prompt: str = ""
    images: list[str] | None = None
    reference_videos: list[str] | None = None
    reference_downscale_factor: int = 1
    video_dims: tuple[int, int, int] = (960, 544, 97)
    frame_rate: float = 25.0
    seed: int = 42
    inference_steps: int = 50
    interval: int | None = 100
    video_cfg_scale: float = 3.0
    audio_cfg_scale: float = 7.0
    video_stg_scale: float = 1.0
    audio_stg_scale: float = 1.0
    stg_blocks: list[int] | None = None
    guidance_rescale: float = 0.7
    video_modality_guidance_scale: float = 3.0
    audio_modality_guidance_scale: float = 3.0
    generate_audio: bool = True
    generate_video: bool = True
    skip_initial_validation: bool = False
    include_reference_in_output: bool = False

    @model_validator(mode="after")
    def _an_output_when_validating(self) -> Any:
        # mirrors ltx_trainer/config.py ValidationConfig.validate_output_modality_requirements
        if (self.prompts or self.samples) and not (self.generate_video or self.generate_audio):
            raise ValueError(
                "At least one of generate_video or generate_audio must be True when validation is configured."
            )
        return self

    @model_validator(mode="before")
    @classmethod
    def _legacy_guidance(cls, data: Any) -> Any:
        # mirrors ltx_trainer/config.py ValidationConfig.migrate_deprecated_guidance_fields:
        # the old scalar keys are still read, but never beside their replacements
        if not isinstance(data, dict):
            return data
        values = dict(data)
        if "guidance_scale" in values:
            if {"video_cfg_scale", "audio_cfg_scale"} & values.keys():
                raise ValueError(
                    "guidance_scale is deprecated; use video_cfg_scale and "
                    "audio_cfg_scale instead, and do not combine old and new CFG fields."
                )
            values["video_cfg_scale"] = values["audio_cfg_scale"] = values.pop("guidance_scale")
        if {"stg_scale", "stg_mode"} & values.keys():
            if {"video_stg_scale", "audio_stg_scale"} & values.keys():
                raise ValueError(
                    "stg_scale and stg_mode are deprecated; use video_stg_scale and "
                    "audio_stg_scale instead, and do not combine old and new STG fields."
                )
            scale, mode = values.pop("stg_scale", 1.0), values.pop("stg_mode", "stg_av")
            if mode not in {"stg_av", "stg_v"}:
                raise ValueError("stg_mode must be either 'stg_av' or 'stg_v'")
            values["video_stg_scale"] = scale
            values["audio_stg_scale"] = scale if mode == "stg_av" else 0.0
        return values


class CheckpointsConfig(_Strict):
    interval: int | None = None
    keep_last_n: int = 1
    precision: Literal["bfloat16", "float32"] = "bfloat16"
    no_resume: bool = False
    save_training_state: Literal["full", "minimal", "off"] = "minimal"


class HubConfig(_Strict):
    push_to_hub: bool = False
    hub_model_id: str | None = None


class WandbConfig(_Strict):
    enabled: bool = False
    project: str = "ltx-2-trainer"
    entity: str | None = None
    tags: list[str] = []
    log_validation_videos: bool = True


class FlowMatchingConfig(_Strict):
    timestep_sampling_mode: str = "shifted_logit_normal"
    timestep_sampling_params: dict = {}


class LtxTrainerConfig(_Strict):
    """Named as the trainer's class, so a rejection reads `N validation error(s) for LtxTrainerConfig`."""

    model: ModelConfig  # the trainer's default has no model_path, so it fails the same way
    lora: LoraConfig | None = None
    training_strategy: TrainingStrategyConfig = Field(default_factory=TextToVideoConfig)
    optimization: OptimizationConfig = OptimizationConfig()
    acceleration: AccelerationConfig = AccelerationConfig()
    data: DataConfig
    validation: ValidationConfig = ValidationConfig()
    checkpoints: CheckpointsConfig = CheckpointsConfig()
    hub: HubConfig = HubConfig()
    flow_matching: FlowMatchingConfig = FlowMatchingConfig()
    wandb: WandbConfig = WandbConfig()
    seed: int = 42
    output_dir: str = "outputs"

    @model_validator(mode="after")
    def _compatible(self) -> "LtxTrainerConfig":
        # mirrors ltx_trainer/config.py LtxTrainerConfig.validate_strategy_compatibility
        # (and its _validate_data_dirs_exist: the folders directly under the root)
        root = Path(self.data.preprocessed_data_root)
        for dir_name in self.training_strategy.data_folders():
            if not (root / dir_name).is_dir():
                raise ValueError(
                    f"Required data directory '{dir_name}' does not exist under "
                    f"preprocessed_data_root: {root / dir_name}"
                )
        if self.training_strategy.name == "video_to_video" and self.validation.interval:
            has_reference = bool(self.validation.reference_videos) or any(
                cond.type == "reference" for sample in self.validation.samples for cond in sample.conditions
            )
            if not has_reference:
                raise ValueError(
                    "reference_videos or samples with reference conditions must be "
                    "provided in validation config when using video_to_video strategy"
                )
        if self.model.training_mode == "lora" and self.lora is None:
            raise ValueError("LoRA configuration must be provided when training_mode is 'lora'")
        if self.training_strategy.name == "video_to_video" and self.model.training_mode != "lora":
            raise ValueError("Training mode must be 'lora' when using video_to_video strategy")
        return self


# Field names per section, read off the models above: the test pins them to the trainer's.
SECTIONS: dict[str, type[BaseModel]] = {
    "": LtxTrainerConfig,
    "model": ModelConfig,
    "lora": LoraConfig,
    "optimization": OptimizationConfig,
    "acceleration": AccelerationConfig,
    "data": DataConfig,
    "validation": ValidationConfig,
    "validation.samples[]": ValidationSample,
    "checkpoints": CheckpointsConfig,
    "hub": HubConfig,
    "flow_matching": FlowMatchingConfig,
    "wandb": WandbConfig,
    "training_strategy[flexible]": FlexibleStrategyConfig,
    "training_strategy[text_to_video]": TextToVideoConfig,
    "training_strategy[video_to_video]": VideoToVideoConfig,
    "training_strategy[flexible].video": ModalityConfig,
    **CONDITION_SECTIONS,
}
