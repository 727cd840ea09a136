"""How long each phase of a real LTX-2 training process takes: the simulated trainer's clock.

Uncompressed seconds on one GPU of the given class; the simulated trainer sleeps them divided by
LTX_WIZARD_SIM_SPEED, and the autotune benchmark counts GPU-seconds from them. The phases follow
the real trainer's order (ltx_trainer/trainer.py LtxvTrainer.__init__ then train()):

1. process start: Python, torch, ltx_core and accelerate imports, CUDA init;
2. ValidationRunner.__init__: Gemma load and prompt encoding *only when validation has samples*
   (validation_runner.py ValidationRunner._cache_prompt_embeddings returns at once without
   prompts), then the video VAE decoder on CPU when validation.generate_video is true
   (ValidationRunner._load_decoder_components runs whether or not there are samples);
3. LtxvTrainer._load_models: the transformer built on CPU in bf16, then quanto quantization;
4. accelerate prepare: weights to the GPU, DDP/FSDP process group on several processes;
5. optimizer steps (memory_model.estimate's step time), validation videos, checkpoint save;
6. teardown (dataloader workers, CUDA context release).

Every figure below is an ESTIMATE unless it says otherwise; the source is named beside it.
Public calibration points (trainer-facts.md, "Memory and cost facts"):
- RTX 5090, LTX-2.3 LoRA, official low-VRAM config: ~1.1 s/step (ai-toolkit #758). The step-time
  model gives 1.65 s there at 576x576x49 (int8 x1.25, RTX 5090 x1.4): within 1.5x, on the slow
  side, which is the side that flatters the naive schedule (training dominates it less).
- H100 full fine-tune 832x480x49: 3.10 s/step at 57.4 GB (musubi-tuner fork). The model gives
  1.46 s there (full x1.3): low, again the side that makes trials (mostly steps) look cheap.
- A100-80G ~8 s/step at 480p, 17 frames, batch 2 (SimpleTuner LTX-2 notes, with its own
  offloading); not used for calibration, noted as the slow end of what users see.
- Validation 30-90 s per video at [576, 576, 49], 30 inference steps, CFG (estimate): 60 s here.
- int8-quanto quantization 30-90 s ("This may take a while...", trainer.py _load_models;
  estimate): 60 s. Gemma 12B in 8-bit 30-60 s (estimate; materialised on CPU first): 45 s.
  Transformer load 15-25 s cold (estimate): 20 s for 22B, linear in parameters.
"""

from __future__ import annotations

from ltx_wizard.core.io.trainer_config import older_trainer_keys, trainer_config
from ltx_wizard.demo.sim.memory_model import DEFAULT_PARAMS, gpu_speed_factor

# 1. Imports and CUDA init of one process (estimate: torch + ltx_core + accelerate ~8 s cold).
PROCESS_START_S = 8.0
# Several processes: accelerate spawns them and NCCL builds its communicator (estimate).
DISTRIBUTED_INIT_S = 10.0
# 2. Gemma 12B: 8-bit 45 s (public 30-60 s, estimate); bf16 loads straight to the GPU, 30 s
# (estimate: ~24 GB read from disk at ~1 GB/s with no quantization pass).
TEXT_ENCODER_LOAD_S = {True: 45.0, False: 30.0}
PROMPT_ENCODE_S = 1.0  # one Gemma forward per prompt plus the negative prompt (estimate)
VAE_DECODER_LOAD_S = 3.0  # video VAE decoder built on CPU (estimate: ~1 GB of weights)
# 3. Transformer built on CPU in bf16: 15-25 s cold for 22B (public estimate), linear in size.
TRANSFORMER_LOAD_S = 20.0
# quanto quantization of a 22B transformer: 30-90 s (public estimate), linear in size.
QUANTIZE_S = 60.0
# 4. Weights to the GPU and accelerate.prepare (estimate: 41 GiB over PCIe 4/5 ~ 3-5 s).
PREPARE_S = 5.0
# 5. Validation per video at the reference [576, 576, 49] (2,268 latent tokens), 30 steps, CFG:
# 60 s (public estimate 30-90 s), split into the denoising loop (linear in inference steps) and
# the tiled VAE decode (not).
VALIDATION_REF_TOKENS = 2268
VALIDATION_REF_STEPS = 30
VALIDATION_DENOISE_S = 50.0
VALIDATION_DECODE_S = 10.0
# A LoRA checkpoint is tens of MB (2 s with the metadata); a full fine-tune writes every
# parameter in the checkpoint precision, ~1 GB/s to local disk (estimate).
LORA_SAVE_S = 2.0
FULL_SAVE_GB_PER_S = 1.0
# 6. Dataloader workers, accelerate shutdown, CUDA context release (estimate).
TEARDOWN_S = 5.0
# After an OOM traceback a real run still takes a while to die (estimate, from watching runs).
OOM_TEARDOWN_S = 20.0


def validation_prompts(config: dict) -> int:
    """Prompts the trainer encodes: `samples`, else the deprecated `prompts` (config.py
    ValidationConfig.convert_legacy_format turns prompts into samples when samples is empty)."""
    return len(trainer_config(config).validation.sample_list())


def start_s(world: int) -> float:
    return PROCESS_START_S + (DISTRIBUTED_INIT_S if world > 1 else 0.0)


def text_encoder_s(config: dict) -> float:
    """0 without validation prompts: no Gemma load at all (see the module docstring)."""
    prompts = validation_prompts(config)
    if not prompts:
        return 0.0
    eight_bit = bool(trainer_config(config).acceleration.load_text_encoder_in_8bit)
    return TEXT_ENCODER_LOAD_S[eight_bit] + PROMPT_ENCODE_S * (prompts + 1)


def vae_decoder_s(config: dict) -> float:
    # the trainer's ValidationConfig.generate_video defaults to True
    return VAE_DECODER_LOAD_S if trainer_config(config).validation.generate_video is not False else 0.0


def transformer_load_s(params: float = DEFAULT_PARAMS) -> float:
    return TRANSFORMER_LOAD_S * params / DEFAULT_PARAMS


def quantization_s(config: dict, params: float = DEFAULT_PARAMS) -> float:
    if not trainer_config(config).acceleration.quantization:
        return 0.0
    return QUANTIZE_S * params / DEFAULT_PARAMS


def validation_video_s(config: dict, gpu_name: str) -> float:
    """One validation video at the config's own video_dims and inference_steps."""
    validation = trainer_config(config).validation
    dims = validation.video_dims or [960, 544, 89]  # the trainer's default
    try:
        width, height, frames = (int(v) for v in dims)
    except (TypeError, ValueError):
        width, height, frames = 960, 544, 89
    tokens = max(1, (width // 32) * (height // 32) * ((frames - 1) // 8 + 1))
    steps = validation.inference_steps if validation.inference_steps is not None else 30
    denoise = VALIDATION_DENOISE_S * steps / VALIDATION_REF_STEPS
    return (denoise + VALIDATION_DECODE_S) * tokens / VALIDATION_REF_TOKENS * gpu_speed_factor(gpu_name)


def validation_round_s(config: dict, gpu_name: str, world: int) -> float:
    """One validation round: the samples go round-robin over the ranks (trainer.py
    LtxvTrainer._run_validation), so the slowest rank makes ceil(videos / world) of them."""
    videos = validation_prompts(config) * (older_trainer_keys(config).validation.videos_per_prompt or 1)
    per_rank = -(-videos // max(1, world))
    return per_rank * validation_video_s(config, gpu_name)


def checkpoint_save_s(config: dict, params: float = DEFAULT_PARAMS) -> float:
    if trainer_config(config).model.training_mode == "full":
        return params * 2 / 1024**3 / FULL_SAVE_GB_PER_S
    return LORA_SAVE_S
