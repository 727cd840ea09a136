"""LtxTrainerConfig: the sections the held-out loss reads, extra="forbid" in them as in the real one."""

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


class DataConfig(_Strict):
    preprocessed_data_root: str
    num_dataloader_workers: int = 0


class LtxTrainerConfig(BaseModel):
    model_config = ConfigDict(extra="allow")  # the sections the program does not read

    model: ModelConfig
    lora: LoraConfig | None = None
    training_strategy: FlexibleStrategyConfig
    acceleration: AccelerationConfig = AccelerationConfig()
    data: DataConfig
