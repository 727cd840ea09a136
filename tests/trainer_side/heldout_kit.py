"""A tiny run for ltx_wizard/trainer_side/heldout_loss.py: the look-alike trainer (lookalike/),
a tiny base model in safetensors, precomputed latents (training and held-out), config.yaml, and LoRA
checkpoints in the trainer's saved format (ComfyUI names, `diffusion_model.` first)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import torch
from safetensors.torch import save_file

import ltx_wizard

LOOKALIKE = Path(__file__).parent / "lookalike"
SCRIPT = Path(ltx_wizard.__file__).parent / "trainer_side" / "heldout_loss.py"  # run by path, never imported
CHANNELS, CONTEXT, TOKENS = 8, 16, 6  # lookalike/ltx_trainer/model_loader.py
TARGETS = ("to_q", "to_k", "to_out")  # the video attention's, and the audio attention's of the same names
LORA_LAYERS = [
    f"transformer_blocks.{b}.{a}.{m}" for b in (0, 1) for a in ("attn1", "audio_attn1") for m in TARGETS
]


def _sizes(module: str) -> tuple[int, int]:
    return (CONTEXT if module.endswith("to_k") else CHANNELS), CHANNELS


def write_base_model(path: Path) -> Path:
    gen = torch.Generator().manual_seed(0)
    weights = {"model.diffusion_model.time.weight": torch.randn(CHANNELS, 1, generator=gen)}
    weights["model.diffusion_model.time.bias"] = torch.zeros(CHANNELS)
    for layer in LORA_LAYERS:
        fan_in, fan_out = _sizes(layer)
        weights[f"model.diffusion_model.{layer}.weight"] = torch.randn(fan_out, fan_in, generator=gen) * 0.3
        weights[f"model.diffusion_model.{layer}.bias"] = torch.zeros(fan_out)
    weights["text_embedding_projection.video_connector.weight"] = torch.eye(CONTEXT)
    weights["text_embedding_projection.video_connector.bias"] = torch.zeros(CONTEXT)
    save_file({k: v.to(torch.bfloat16).contiguous() for k, v in weights.items()}, str(path))
    return path


def write_lora(path: Path, *, seed: int, scale: float = 0.05, rank: int = 2) -> Path:
    """A LoRA as the trainer saves it (LtxvTrainer._save_checkpoint): PEFT names with the
    `diffusion_model.` prefix; scale 0 gives all zeros, a NaN scale a NaN LoRA."""
    gen = torch.Generator().manual_seed(seed)
    weights = {}
    for layer in LORA_LAYERS:
        fan_in, fan_out = _sizes(layer)
        weights[f"diffusion_model.{layer}.lora_A.weight"] = torch.randn(rank, fan_in, generator=gen) * scale
        weights[f"diffusion_model.{layer}.lora_B.weight"] = torch.randn(fan_out, rank, generator=gen) * scale
    save_file({k: v.to(torch.bfloat16).contiguous() for k, v in weights.items()}, str(path))
    return path


def write_latents(root: Path, count: int, seed: int) -> Path:
    """`count` samples: latents/ and conditions/ as the trainer's preprocessing writes them."""
    gen = torch.Generator().manual_seed(seed)
    for i in range(count):
        for sub in ("latents", "conditions"):
            (root / sub).mkdir(parents=True, exist_ok=True)
        latent = {
            "latents": torch.randn(CHANNELS, 2, 1, TOKENS // 2, generator=gen),
            "num_frames": 2,
            "height": 1,
            "width": TOKENS // 2,
            "fps": 24.0,
        }
        cond = {
            "video_prompt_embeds": torch.randn(4, CONTEXT, generator=gen),
            "audio_prompt_embeds": torch.randn(4, CONTEXT, generator=gen),
            "prompt_attention_mask": torch.tensor([True, True, True, False]),
        }
        torch.save(latent, root / "latents" / f"clip{i:03d}.pt")
        torch.save(cond, root / "conditions" / f"clip{i:03d}.pt")
    return root


def write_run(run: Path, *, train: int = 6, held: int = 3) -> Path:
    """RUN/config.yaml over a tiny base model, training latents and held-out latents."""
    run.mkdir(parents=True, exist_ok=True)
    model = write_base_model(run / "base.safetensors")
    write_latents(run / "dataset" / ".precomputed", train, seed=1)
    write_latents(run / "dataset" / "heldout" / ".precomputed", held, seed=2)
    (run / "config.yaml").write_text(
        "model:\n"
        f"  model_path: {model}\n"
        f"  text_encoder_path: {run / 'gemma'}\n"
        "  training_mode: lora\n"
        "lora:\n  rank: 2\n  alpha: 2\n  dropout: 0.5\n"
        f"  target_modules: [{', '.join(TARGETS)}]\n"
        "training_strategy:\n  name: flexible\n"
        "  video:\n    is_generated: true\n    latents_dir: latents\n"
        "    conditions:\n      - type: first_frame\n        probability: 0.5\n"
        "  audio: null\n"
        "acceleration:\n  mixed_precision_mode: bf16\n  quantization: null\n"
        f"data:\n  preprocessed_data_root: {run / 'dataset' / '.precomputed'}\n"
        "optimization:\n  steps: 100\n",
        encoding="utf-8",
    )
    return run


def run_program(
    run: Path, *args: str, python: str = sys.executable, extra_path: Path = LOOKALIKE, env: dict | None = None
):
    """The program as the wizard will start it: a separate interpreter, the trainer on its path."""
    # One thread: torch takes every core by default, and beside the suite's other workers that
    # oversubscribes the machine (this fixture took 320 s under -n 4 on 2 cores, 42 s alone).
    env = {
        **os.environ,
        "PYTHONPATH": str(extra_path),
        "CUDA_VISIBLE_DEVICES": "",
        "OMP_NUM_THREADS": "1",
        **(env or {}),
    }
    cmd = [python, str(SCRIPT), "--config", str(run / "config.yaml"), *args]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
