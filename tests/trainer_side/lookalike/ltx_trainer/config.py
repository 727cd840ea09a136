"""LtxTrainerConfig: the sections the held-out loss and the tournament renders read, extra="forbid" in them as in the real one."""

from typing import Literal

from pydantic import BaseModel, ConfigDict

from ltx_trainer.training_strategies import FlexibleStrategyConfig


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ModelConfig(_Strict):
    model_path: str
    text_encoder_path: str
    video_vae_path: str | None = None
    audio_vae_path: str | None = None
    training_mode: Literal["lora", "full"] = "lora"
    load_checkpoint: str | None = None


class LoraConfig(_Strict):
    rank: int = 64
    alpha: int = 64
    dropout: float = 0.0
    target_modules: list[str]


class AccelerationConfig(_Strict):
    mixed_precision_mode: Literal["no", "fp16", "bf16"] = "bf16"
    quantization: str | None = None
    load_text_encoder_in_8bit: bool = False


class DataConfig(_Strict):
    preprocessed_data_root: str
    num_dataloader_workers: int = 0


class ValidationSample(_Strict):
    prompt: str
    conditions: list = []
    video_dims: tuple[int, int, int] | None = None
    seed: int | None = None


class ValidationConfig(BaseModel):
    model_config = ConfigDict(extra="allow")  # the fields the look-alike runner does not read

    samples: list[ValidationSample] = []
    negative_prompt: str = ""
    video_dims: tuple[int, int, int] = (960, 544, 97)
    frame_rate: float = 25.0
    seed: int = 42
    inference_steps: int = 30


class LtxTrainerConfig(BaseModel):
    model_config = ConfigDict(extra="allow")  # the sections the program does not read

    model: ModelConfig
    lora: LoraConfig | None = None
    training_strategy: FlexibleStrategyConfig
    acceleration: AccelerationConfig = AccelerationConfig()
    data: DataConfig
    validation: ValidationConfig = ValidationConfig()
