"""FlexibleStrategy as the real one draws its randomness (ltx_trainer/training_strategies/
flexible.py): sigma from the sampler's sample_for, the noise by torch.randn_like, the first-frame
condition by a per-sample torch.rand Bernoulli; compute_loss a masked MSE per sample, [B]."""

from dataclasses import dataclass
from typing import Any, Literal

import torch
from pydantic import BaseModel, ConfigDict
from torch import Tensor


class FirstFrameConditionConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["first_frame"] = "first_frame"
    probability: float = 1.0


class ModalityConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    is_generated: bool
    latents_dir: str
    conditions: list[FirstFrameConditionConfig] = []


class FlexibleStrategyConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Literal["flexible"] = "flexible"
    video: ModalityConfig | None = None
    audio: ModalityConfig | None = None

    def get_data_sources(self) -> dict[str, str]:
        sources = {"conditions": "conditions"}
        if self.video is not None:
            sources[self.video.latents_dir] = "video_latents"
        if self.audio is not None:
            sources[self.audio.latents_dir] = "audio_latents"
        return sources


@dataclass(frozen=True)
class Modality:
    enabled: bool
    latent: Tensor
    sigma: Tensor
    timesteps: Tensor
    positions: Tensor | None
    context: Tensor
    context_mask: Tensor


@dataclass
class ModelInputs:
    video: Modality | None
    audio: Modality | None
    video_targets: Tensor | None
    audio_targets: Tensor | None
    video_loss_mask: Tensor | None
    audio_loss_mask: Tensor | None


class FlexibleStrategy:
    def __init__(self, config: FlexibleStrategyConfig) -> None:
        self.config = config
        self.video_scale_factors = None

    def prepare_training_inputs(self, batch: dict[str, Any], timestep_sampler: Any) -> ModelInputs:
        data = batch["video_latents"]
        latents = data["latents"]  # [B, C, F, H, W]
        b, c, f, h, w = latents.shape
        latents = latents.permute(0, 2, 3, 4, 1).reshape(b, f * h * w, c)
        sigmas = timestep_sampler.sample_for(latents)
        noise = torch.randn_like(latents)
        s = sigmas.view(-1, 1, 1)
        noisy = (1 - s) * latents + s * noise
        targets = noise - latents
        timesteps = sigmas.view(-1, 1).expand(b, f * h * w).clone()
        loss_mask = torch.ones(b, f * h * w, dtype=torch.bool)
        for cond in self.config.video.conditions:
            chosen = torch.rand(b) < cond.probability
            first = torch.zeros(b, f * h * w)
            first[:, : h * w] = 1.0
            first = first * chosen.view(-1, 1).float()
            noisy = first.unsqueeze(-1) * latents + (1 - first.unsqueeze(-1)) * noisy
            timesteps = (1 - first) * timesteps
            loss_mask = loss_mask & (first == 0)
        conditions = batch["conditions"]
        video = Modality(
            True,
            noisy,
            sigmas,
            timesteps,
            None,
            conditions["video_prompt_embeds"],
            conditions["prompt_attention_mask"],
        )
        return ModelInputs(video, None, targets, None, loss_mask, None)

    def compute_loss(self, video_pred: Tensor, audio_pred: Tensor | None, inputs: ModelInputs) -> Tensor:
        mask = inputs.video_loss_mask.unsqueeze(-1).float()
        loss = ((video_pred - inputs.video_targets).pow(2) * mask).mean(dim=[-2, -1])
        return loss / mask.mean(dim=[-2, -1]).clamp(min=1e-8)


def get_training_strategy(config: FlexibleStrategyConfig) -> FlexibleStrategy:
    return FlexibleStrategy(config)
