"""The loaders the held-out loss calls, by the real names and arguments, over a tiny transformer
read from a safetensors file (its weights, named as TinyTransformer's state dict)."""

import os
from pathlib import Path

import torch
from safetensors.torch import load_file
from torch import nn

CHANNELS, CONTEXT = 8, 16


class Attention(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.to_q = nn.Linear(CHANNELS, CHANNELS)
        self.to_k = nn.Linear(CONTEXT, CHANNELS)
        self.to_out = nn.Linear(CHANNELS, CHANNELS)


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.attn1 = Attention()
        self.audio_attn1 = Attention()  # never run on a video-only forward, as in the real model


class TinyTransformer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.transformer_blocks = nn.ModuleList([Block(), Block()])
        self.time = nn.Linear(1, CHANNELS)

    def forward(self, video, audio, perturbations=None):
        x = video.latent
        ctx = video.context.mean(dim=1, keepdim=True)
        for block in self.transformer_blocks:
            a = block.attn1
            x = x + a.to_out(torch.tanh(a.to_q(x) + a.to_k(ctx) + self.time(video.timesteps.unsqueeze(-1))))
        return x, None

    def set_gradient_checkpointing(self, enabled: bool) -> None:
        pass


class Embeddings(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.video_connector = nn.Linear(CONTEXT, CONTEXT)
        self.feature_extractor = None

    def create_embeddings(self, video_features, audio_features, additive_attention_mask):
        binary = (additive_attention_mask.reshape(video_features.shape[0], -1) == 0).to(video_features.dtype)
        return self.video_connector(video_features) * binary.unsqueeze(-1), audio_features, binary


def _weights(path: str | Path, prefix: str) -> dict[str, torch.Tensor]:
    return {k[len(prefix) :]: v for k, v in load_file(str(path)).items() if k.startswith(prefix)}


# A test's count of transformer loads: each load appends a line to the file this names (unset: none).
LOADS_ENV = "LOOKALIKE_TRANSFORMER_LOADS"


def load_transformer(checkpoint_path, device="cpu", dtype=torch.bfloat16) -> TinyTransformer:
    if os.environ.get(LOADS_ENV):
        with open(os.environ[LOADS_ENV], "a", encoding="utf-8") as f:
            f.write(f"{checkpoint_path}\n")
    model = TinyTransformer()
    model.load_state_dict(_weights(checkpoint_path, "model.diffusion_model."), strict=True)
    return model.to(device=device, dtype=dtype)


def load_embeddings_processor(checkpoint_path, gemma_model_path, device="cpu", dtype=torch.bfloat16):
    model = Embeddings()
    model.load_state_dict(_weights(checkpoint_path, "text_embedding_projection."), strict=True)
    return model.to(device=device, dtype=dtype)


def embedding_weight_paths(transformer_path, text_encoder_path):
    return str(transformer_path)


def resolve_video_vae_path(model_path, video_vae_path=None) -> str:
    return str(video_vae_path or model_path)


def read_video_scale_factors(model_path):
    return (8, 32, 32)
