"""A deliberately simple per-GPU memory and step-time model of LTX-2 LoRA training.

Not physics: a calibration that reproduces what users report, so the simulated trainer runs out of
memory where the real one does. All sizes in GiB (what the trainer and nvidia-smi call "GB").

Components, for P transformer parameters (22e9 unless LTX_WIZARD_SIM_PARAMS says otherwise):
- CUDA context and cuBLAS workspace: 0.75.
- Transformer weights: P x bytes per weight: bf16 2, int8-quanto 1, fp8(-uz)-quanto 1,
  int4-quanto 0.5, int2-quanto 0.25. Quanto leaves ~5 % of the parameters (norms, embeddings,
  projections) in bf16 and needs ~3.5 for per-block dequantisation buffers (forward+backward).
- LoRA: rank x 2.5e6 x P/22e9 trainable parameters, fp32 weights (4 B) and grads (4 B); AdamW
  states 8 B per trainable parameter, AdamW8bit 2 B. Full fine-tune: all P trainable, bf16 grads,
  sharded over the processes (FSDP).
- Training activations: 2.6 per sample at 576x576x89 (3,888 latent tokens), linear in tokens and
  batch_size; gradient checkpointing off multiplies them by 36 (all 48 blocks keep every
  intermediate: ~94 per sample), which is why it OOMs on 80 GB and on 141 GB cards alike.
- Validation: VAE weights plus tiled decode and CFG inference, 3.5 + 1.0 x tokens/3888; optimizer
  states leave the GPU when offload_optimizer_during_validation is true.
- Text encoder (12B Gemma), loaded alone first and unloaded before the transformer: 22.4 in bf16,
  11.7 in 8-bit, +1 for encoding; not loaded at all when validation has no prompts.
- Allocator overhead: dynamic allocations (grads, optimizer, activations) x 1.15.
- Multi-process (DDP): +0.4 for communication buffers.

A phase fits when ctx + static + 1.15 x dynamic <= the card. The *reported* peak adds what the
caching allocator keeps reserved while there is room: min(60 % of the headroom, text encoder +
validation buffers), which is why a big card reads 60-70 GB for a ~48 GB job.

Calibration (fits / reported peak, GiB; cards as nvidia-smi reports them):
- RTX 5090 (31.84), low-VRAM config: fits at ~31.1 (headroom < 1, as issue #180 reports);
  quantization null: OOM (41 of bf16 weights); batch 2: OOM at ~32.2.
- RTX A6000 (47.99), low-VRAM with quantization null and adamw8bit: fits at ~47.1, with adamw
  too (~47.1, optimizer offloaded during validation); batch 2 on top: OOM at ~48.4.
- H100 (79.65), standard config: needs ~47.9, reads ~66.9. Gradient checkpointing off: OOM
  (~150 needed), also on an H200 (140.4).

Step time: 1.6 s on an H100 for the standard config (batch 1, 3,888 tokens), x 1.25 for
int8-quanto (fp8 1.1, int2 1.4, int4 3.0), x 1.01 for adamw8bit (a LoRA optimizer step is tiny
next to the 22B forward and backward), x (1 + 0.8 (batch - 1)) for larger batches (batch 2:
1.8x per step, better per sample), x 0.75 with checkpointing off,
x tokens/3888, x 1.06 with more than one process, x a GPU-class factor (see _SPEED).
"""

from __future__ import annotations

import os

from pydantic import BaseModel, ConfigDict

from ltx_wizard.core.io.trainer_config import trainer_config

GIB = 1024**3
DEFAULT_PARAMS = 22e9
REF_TOKENS = 3888  # 576x576x89 -> 18 x 18 x 12 latent tokens
CTX_GB = 0.75
QUANT_BUFFERS_GB = 3.5
ACT_GB_PER_SAMPLE = 2.6
NO_CHECKPOINTING_FACTOR = 36.0
ALLOCATOR_FACTOR = 1.15
BASE_STEP_S = 1.6

_BYTES_PER_WEIGHT = {
    None: 2.0,
    "int8-quanto": 1.0,
    "fp8-quanto": 1.0,
    "fp8uz-quanto": 1.0,
    "int4-quanto": 0.5,
    "int2-quanto": 0.25,
}
_QUANT_SLOWDOWN = {
    None: 1.0,
    "int8-quanto": 1.25,
    "fp8-quanto": 1.1,
    "fp8uz-quanto": 1.1,
    "int4-quanto": 3.0,
    "int2-quanto": 1.4,
}
# GPU class -> step time relative to an H100 (first substring match of the lower-cased name wins)
_SPEED = (
    ("b200", 0.6),
    ("h200", 0.9),
    ("h100", 1.0),
    ("a100", 1.6),
    ("rtx 6000 ada", 1.7),
    ("l40s", 1.8),
    ("l40", 2.0),
    ("a6000", 2.2),
    ("5090", 1.4),
    ("4090", 1.9),
    ("v100", 4.0),
    ("t4", 10.0),
    ("gb10", 5.0),
)


class MemoryEstimate(BaseModel):
    model_config = ConfigDict(frozen=True)

    peak_gb: float  # what nvidia-smi would read at the worst moment
    fits: bool
    step_time_s: float  # one optimizer step, uncompressed
    breakdown: dict[str, float]


def transformer_params() -> float:
    raw = os.environ.get("LTX_WIZARD_SIM_PARAMS", "")
    try:
        return float(raw) if raw else DEFAULT_PARAMS
    except ValueError:
        return DEFAULT_PARAMS


def latent_tokens(config: dict) -> int:
    dims = trainer_config(config).validation.video_dims or [576, 576, 89]
    try:
        width, height, frames = (int(v) for v in dims)
    except (TypeError, ValueError):
        return REF_TOKENS
    return max(1, (width // 32) * (height // 32) * ((frames - 1) // 8 + 1))


def gpu_speed_factor(gpu_name: str) -> float:
    name = gpu_name.lower()
    return next((factor for key, factor in _SPEED if key in name), 2.0)


def estimate(
    config: dict,
    gpu_total_gb: float,
    num_processes: int = 1,
    gpu_name: str = "NVIDIA H100 80GB HBM3",
) -> MemoryEstimate:
    """Per-GPU peak memory, whether it fits, and the step time of `config` on one card."""
    params = transformer_params()
    keys = trainer_config(config)
    quant = keys.acceleration.quantization
    optimizer = keys.optimization.optimizer_type or "adamw"
    batch = max(1, keys.optimization.batch_size or 1)
    checkpointing = keys.optimization.enable_gradient_checkpointing is not False  # the trainer's True
    full = keys.model.training_mode == "full"
    offload = bool(keys.acceleration.offload_optimizer_during_validation)
    te_8bit = bool(keys.acceleration.load_text_encoder_in_8bit)
    tokens = latent_tokens(config)
    # No validation prompts: the trainer neither validates nor loads Gemma at all
    # (validation_runner.py ValidationRunner._cache_prompt_embeddings, trainer.py _run_validation).
    prompts = bool(keys.validation.sample_list())
    validates = prompts and (not keys.validation.skip_initial_validation or bool(keys.validation.interval))

    bpw = _BYTES_PER_WEIGHT.get(quant, 1.0)
    weights = params * (0.95 * bpw + 0.05 * 2.0 if quant else bpw) / GIB
    quant_buffers = QUANT_BUFFERS_GB if quant else 0.0
    opt_bytes = 2.0 if optimizer == "adamw8bit" else 8.0
    shards = max(1, num_processes) if full else 1
    if full:
        lora_params, grads = 0.0, params * 2.0 / GIB / shards
        opt_states = params * opt_bytes / GIB / shards
    else:
        trainable = (keys.lora.rank if keys.lora.rank is not None else 32) * 2.5e6 * params / DEFAULT_PARAMS
        lora_params = grads = trainable * 4.0 / GIB
        opt_states = trainable * opt_bytes / GIB
    act_factor = 1.0 if checkpointing else NO_CHECKPOINTING_FACTOR
    activations = ACT_GB_PER_SAMPLE * tokens / REF_TOKENS * batch * act_factor
    validation_buffers = 3.5 + 1.0 * tokens / REF_TOKENS
    text_encoder = (11.7 if te_8bit else 22.4) + 1.0
    comm = 0.4 if num_processes > 1 else 0.0

    static = weights + quant_buffers + lora_params + comm
    train_dyn = (grads + opt_states + activations) * ALLOCATOR_FACTOR
    val_dyn = ((0.0 if offload else opt_states) + validation_buffers) * ALLOCATOR_FACTOR
    phases = {
        "text_encoder_phase_gb": CTX_GB + text_encoder if prompts else 0.0,
        "load_phase_gb": CTX_GB + static,
        "validation_phase_gb": CTX_GB + static + val_dyn if validates else 0.0,
        "train_phase_gb": CTX_GB + static + train_dyn,
    }
    required = max(phases.values())
    fits = required <= gpu_total_gb
    cached = min(
        0.6 * max(0.0, gpu_total_gb - required), (text_encoder if prompts else 0.0) + validation_buffers
    )
    peak = required + cached if fits else required

    slowdown = _QUANT_SLOWDOWN.get(quant, 1.5)
    step = BASE_STEP_S * slowdown * (1.01 if optimizer == "adamw8bit" else 1.0)
    step *= (1 + 0.8 * (batch - 1)) * (1.0 if checkpointing else 0.75) * tokens / REF_TOKENS
    step *= (1.06 if num_processes > 1 else 1.0) * (1.3 if full else 1.0)
    step *= gpu_speed_factor(gpu_name)

    breakdown = {
        "cuda_context_gb": CTX_GB,
        "weights_gb": weights,
        "quantization_buffers_gb": quant_buffers,
        "lora_params_gb": lora_params,
        "gradients_gb": grads,
        "optimizer_states_gb": opt_states,
        "activations_gb": activations,
        "validation_buffers_gb": validation_buffers,
        "text_encoder_gb": text_encoder,
        "allocator_cache_gb": cached if fits else 0.0,
        "required_gb": required,
        **phases,
    }
    return MemoryEstimate(
        peak_gb=round(peak, 2),
        fits=fits,
        step_time_s=round(step, 3),
        breakdown={k: round(v, 3) for k, v in breakdown.items()},
    )
