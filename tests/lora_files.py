"""LoRA checkpoints in the trainer's on-disk format, built for the health check's tests and benchmark.

Names: ltx_trainer/trainer.py `LtxvTrainer._save_checkpoint` saves PEFT's state dict as
`diffusion_model.<module>.lora_A.weight` (rank x in) and `...lora_B.weight` (out x rank), in
bfloat16 by default (checkpoints.precision). Modules and their shapes: ltx-core's
BasicAVTransformerBlock (ltx_core/model/transformer/transformer.py: attn1, attn2, ff, audio_attn1,
audio_attn2, audio_ff, audio_to_video_attn, video_to_audio_attn), Attention (attention.py: to_q,
to_k, to_v, to_out.0; inner width heads x d_head), FeedForward (feed_forward.py: net.0.proj, net.2,
4x wide). LTX-2's sizes (model_configurator.py defaults): 48 blocks, video 32 x 128 = 4096 wide
with 4096-wide text context, audio 32 x 64 = 2048 wide with 2048-wide context; the audio-video
cross attentions use the audio heads.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import torch
from safetensors.torch import save_file

DEFAULT_TARGETS = ("to_k", "to_q", "to_v", "to_out.0")  # ltx_trainer/config.py LoraConfig
FF_TARGETS = ("ff.net.0.proj", "ff.net.2")  # the shipped configs' commented-out extra targets


@dataclass(frozen=True)
class Dims:
    blocks: int = 48
    video: int = 4096
    video_context: int = 4096
    audio: int = 2048
    audio_context: int = 2048


LTX2 = Dims()
TINY = Dims(blocks=4, video=16, video_context=12, audio=8, audio_context=6)


def _attention(name: str, query: int, context: int, inner: int) -> dict[str, tuple[int, int]]:
    """(in, out) of each Linear of an Attention."""
    return {
        f"{name}.to_q": (query, inner),
        f"{name}.to_k": (context, inner),
        f"{name}.to_v": (context, inner),
        f"{name}.to_out.0": (inner, query),
    }


def block_linears(d: Dims) -> dict[str, tuple[int, int]]:
    """One block's Linear layers by name, with (in, out)."""
    v, a = d.video, d.audio
    found = _attention("attn1", v, v, v) | _attention("attn2", v, d.video_context, v)
    found |= _attention("audio_attn1", a, a, a) | _attention("audio_attn2", a, d.audio_context, a)
    found |= _attention("audio_to_video_attn", v, a, a) | _attention("video_to_audio_attn", a, v, a)
    found |= {"ff.net.0.proj": (v, 4 * v), "ff.net.2": (4 * v, v)}
    found |= {"audio_ff.net.0.proj": (a, 4 * a), "audio_ff.net.2": (4 * a, a)}
    return found


def targeted(name: str, targets: tuple[str, ...]) -> bool:
    """PEFT's suffix rule (written again here, so the test does not borrow the code it checks)."""
    return any(name == t or name.endswith("." + t) for t in targets)


def modules(d: Dims, targets: tuple[str, ...] = DEFAULT_TARGETS) -> dict[str, tuple[int, int]]:
    """Every LoRA module PEFT wraps for `targets`: `transformer_blocks.N.<linear>` -> (in, out)."""
    return {
        f"transformer_blocks.{i}.{name}": shape
        for i in range(d.blocks)
        for name, shape in block_linears(d).items()
        if targeted(name, targets)
    }


def is_audio(module: str) -> bool:
    return module.split(".")[2] in {
        "audio_attn1",
        "audio_attn2",
        "audio_ff",
        "audio_to_video_attn",
        "video_to_audio_attn",
    }


def write_lora(
    path: Path,
    *,
    dims: Dims = TINY,
    rank: int = 4,
    targets: tuple[str, ...] = DEFAULT_TARGETS,
    audio_trained: bool = False,
    zero_b: bool = False,
    nan_in: str | None = None,
    extra: tuple[str, ...] = (),
    dtype: torch.dtype = torch.bfloat16,
    seed: int = 0,
) -> Path:
    """A LoRA file as the trainer saves it. Video modules learned something (B non-zero) unless
    `zero_b`; audio and cross modules keep PEFT's zero B unless `audio_trained`; `nan_in` puts a
    NaN in that module's B; `extra` adds modules the targets do not match (learned)."""
    gen = torch.Generator().manual_seed(seed)
    tensors: dict[str, torch.Tensor] = {}
    foreign = modules(dims, extra)
    for module, (fan_in, fan_out) in (modules(dims, targets) | foreign).items():
        a = torch.randn(rank, fan_in, generator=gen) / fan_in**0.5
        learned = not zero_b and (audio_trained or not is_audio(module) or module in foreign)
        b = torch.randn(fan_out, rank, generator=gen) * 1e-3 if learned else torch.zeros(fan_out, rank)
        if module == nan_in:
            b[0, 0] = float("nan")
        tensors[f"diffusion_model.{module}.lora_A.weight"] = a.to(dtype).contiguous()
        tensors[f"diffusion_model.{module}.lora_B.weight"] = b.to(dtype).contiguous()
    save_file(tensors, str(path))
    return path


def lora_params(dims: Dims, rank: int, targets: tuple[str, ...] = DEFAULT_TARGETS) -> int:
    return sum(rank * (i + o) for i, o in modules(dims, targets).values())
