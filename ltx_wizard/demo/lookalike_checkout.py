"""Build a small look-alike of a user's LTX-2 monorepo checkout.

Used by the tests and by `--demo`. The project ships none of the trainer's own files: these
configs are written here from the trainer's schema (its field names, the `flexible` strategy with a
video and an audio block, nesting, value styles) with comments, flow maps, nulls and nested lists,
so that the byte-preserving patcher and the simulated trainer meet the shapes the real files have.
"""

from __future__ import annotations

from pathlib import Path

from ltx_wizard.core.inputs.checkout import LOW_VRAM_CONFIG, STANDARD_CONFIG, TRAINER_REL

_COMMON_TAIL = """\
# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------
data:
  # What the preprocessing script wrote; the strategy above says which of its
  # folders are read (here latents/, conditions/ and audio_latents/).
  preprocessed_data_root: "/path/to/preprocessed/.precomputed"
  num_dataloader_workers: 2

# ---------------------------------------------------------------------------
# Validation videos during training
# ---------------------------------------------------------------------------
validation:
  samples:
    - prompt: "A red kite over a grey beach, slow pan, wind and surf"   # first sample
    - prompt: 'A cat walks across a sunlit kitchen floor, soft footsteps'
  negative_prompt: "worst quality, blurry"
  video_dims: [576, 576, 89]  # width, height, frames
  frame_rate: 25.0
  seed: 42
  inference_steps: 30
  interval: 250
  video_cfg_scale: 3.0
  audio_cfg_scale: 7.0
  stg_blocks: [28]
  generate_audio: true   # may differ from what the strategy trains
  skip_initial_validation: false

# ---------------------------------------------------------------------------
# Checkpoints
# ---------------------------------------------------------------------------
checkpoints:
  interval: 250
  keep_last_n: -1   # -1 keeps every one
  precision: bfloat16

# ---------------------------------------------------------------------------
# Flow matching
# ---------------------------------------------------------------------------
flow_matching:
  timestep_sampling_mode: "shifted_logit_normal"
  timestep_sampling_params: { }

hub:
  push_to_hub: false
  hub_model_id: null

wandb:
  enabled: false
  project: "ltx-2-trainer"
  entity: null
  tags: []
  log_validation_videos: true

seed: 42
output_dir: "outputs/t2v_lora"
"""

# The `flexible` strategy block of both t2v files: video and audio generated from text.
STRATEGY_BLOCK = """\
# ---------------------------------------------------------------------------
# Training strategy
# ---------------------------------------------------------------------------
training_strategy:
  name: "flexible"   # one strategy for every recipe; modalities below
  video:
    # generated: denoised and in the loss
    is_generated: true
    latents_dir: "latents"   # folder name under preprocessed_data_root
  audio:
    # drop this block (audio: null) for clips without sound
    is_generated: true
    latents_dir: "audio_latents"

"""

STANDARD_TEXT = (
    """\
# ===========================================================================
# Text-to-video LoRA (with audio), standard memory profile: 80GB-class GPUs.
# Look-alike written by ltx-wizard for tests and the demo.
#
# Data root layout:
#   latents/  conditions/  audio_latents/
# ===========================================================================

model:
  model_path: "/path/to/ltx-2-checkpoint.safetensors"
  text_encoder_path: "/path/to/gemma"
  # Split packs only (a unified checkpoint holds both):
  # video_vae_path: "/path/to/video-vae.safetensors"
  # audio_vae_path: "/path/to/audio-vae.safetensors"
  training_mode: "lora"  # "lora" or "full"
  load_checkpoint: null

lora:
  rank: 32
  alpha: 32
  dropout: 0.0
  target_modules:
    # short names match the video, audio and cross-modal attention alike
    - "to_k"
    - "to_q"
    - "to_v"
    - "to_out.0"
    # - "ff.net.0.proj"

"""
    + STRATEGY_BLOCK
    + """\
optimization:
  learning_rate: 1e-4
  steps: 2000
  batch_size: 1
  gradient_accumulation_steps: 1
  max_grad_norm: 1.0
  optimizer_type: "adamw"
  scheduler_type: "linear"
  scheduler_params: {}
  enable_gradient_checkpointing: true

acceleration:
  mixed_precision_mode: "bf16"
  quantization: null
  load_text_encoder_in_8bit: false
  offload_optimizer_during_validation: false

"""
    + _COMMON_TAIL
)

LOW_VRAM_TEXT = (
    """\
# ===========================================================================
# Text-to-video LoRA (with audio), low memory profile: 32GB-class GPUs.
# Look-alike written by ltx-wizard for tests and the demo.
# ===========================================================================

model:
  model_path: "/path/to/ltx-2-checkpoint.safetensors"
  text_encoder_path: "/path/to/gemma"
  training_mode: "lora"
  load_checkpoint: null

lora:
  rank: 16
  alpha: 16
  dropout: 0.0
  target_modules: ["to_k", "to_q", "to_v", "to_out.0"]

"""
    + STRATEGY_BLOCK
    + """\
optimization:
  learning_rate: 1e-4
  steps: 2000
  batch_size: 1
  gradient_accumulation_steps: 1
  max_grad_norm: 1.0
  optimizer_type: "adamw8bit"   # 8-bit states save memory
  scheduler_type: "linear"
  scheduler_params: {}
  enable_gradient_checkpointing: true

acceleration:
  mixed_precision_mode: "bf16"
  quantization: "int8-quanto"   # quantize the transformer weights
  load_text_encoder_in_8bit: true
  offload_optimizer_during_validation: true

"""
    + _COMMON_TAIL
)

ACCELERATE_TEXT = """\
# Look-alike accelerate config ({kind}); the real ones hard-code four processes.
compute_environment: LOCAL_MACHINE
distributed_type: {dist}
mixed_precision: bf16
num_machines: 1
num_processes: 4
machine_rank: 0
main_training_function: main
use_cpu: false
"""

TRAIN_SCRIPT = '''\
"""Look-alike of scripts/train.py: the wizard never runs it in tests (the simulated trainer does)."""
raise SystemExit("look-alike checkout: use the simulated trainer")
'''


def make_checkout(
    root: Path,
    *,
    synced: bool = True,
    recipes: bool = True,
    media: Path | None = None,
    layout: str | None = "1.2",
) -> Path:
    """Write a look-alike LTX-2 monorepo under `root` and return `root`; `recipes` adds one
    recipe config per family beside the two t2v files (demo/lookalike_recipes.py). Their
    validation media are placeholders, as shipped, unless `media` names a folder to write them in
    (the demo does, so every recipe's sanity check can run). `layout` names the ltx-core release
    whose version facts the checkout carries (demo/lookalike_layouts.py; None: none at all)."""
    trainer = root / TRAINER_REL
    (trainer / "configs" / "accelerate").mkdir(parents=True, exist_ok=True)
    (trainer / "scripts").mkdir(parents=True, exist_ok=True)
    (trainer / "docs").mkdir(parents=True, exist_ok=True)
    (trainer / "scripts" / "train.py").write_text(TRAIN_SCRIPT, encoding="utf-8")
    write_process_dataset(root)
    from ltx_wizard.demo.lookalike_prepare_scripts import write_prepare_scripts

    write_prepare_scripts(root)  # split_scenes, caption_videos, serve_captioner, compute_reference
    (trainer / "configs" / STANDARD_CONFIG).write_text(STANDARD_TEXT, encoding="utf-8")
    (trainer / "configs" / LOW_VRAM_CONFIG).write_text(LOW_VRAM_TEXT, encoding="utf-8")
    if recipes:
        from ltx_wizard.demo.lookalike_recipes import RECIPES, recipe_text, with_media

        for recipe in RECIPES:
            text = recipe_text(recipe) if media is None else with_media(recipe_text(recipe), media)
            (trainer / "configs" / f"{recipe.name}.yaml").write_text(text, "utf-8")
    for kind, dist in (("ddp", "MULTI_GPU"), ("fsdp", "FSDP")):
        text = ACCELERATE_TEXT.format(kind=kind, dist=dist)
        (trainer / "configs" / "accelerate" / f"{kind}.yaml").write_text(text, encoding="utf-8")
    (trainer / "docs" / "quick-start.md").write_text(
        "# Quick start (look-alike)\n\n80GB recommended, 32GB minimum.\n", encoding="utf-8"
    )
    (root / "uv.lock").write_text("# look-alike lock file\n", encoding="utf-8")
    from ltx_wizard.demo.lookalike_pipelines import write_pipelines

    write_pipelines(root)  # the entry points the evaluation runs, with the real flags
    if synced:
        (root / ".venv").mkdir(exist_ok=True)
    if layout is not None:
        from ltx_wizard.demo.lookalike_layouts import write_layout

        write_layout(root, layout, synced=synced)
    return root


# Look-alike of packages/ltx-trainer/scripts/process_dataset.py: the real script's options
# (typer: `--x/--no-x` for booleans, --model-path and --text-encoder-path required), written with
# argparse so the simulated preprocessor and the tests read the same parser at run time.
PROCESS_DATASET_SCRIPT = '''\
"""Look-alike of scripts/process_dataset.py: the same options as the real typer app."""
import argparse


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="process_dataset.py")
    p.add_argument("dataset_path")
    p.add_argument("--resolution-buckets", default=None)
    p.add_argument("--model-path", required=True)
    p.add_argument("--text-encoder-path", required=True)
    p.add_argument("--video-vae-path", default=None)
    p.add_argument("--audio-vae-path", default=None)
    p.add_argument("--caption-column", default=None)
    p.add_argument("--video-column", default=None)
    p.add_argument("--batch-size", type=int, default=1)
    p.add_argument("--device", default="cuda")
    p.add_argument("--vae-tiling", action=argparse.BooleanOptionalAction, default=False)
    p.add_argument("--output-dir", default=None)
    p.add_argument("--lora-trigger", default=None)
    p.add_argument("--decode", action=argparse.BooleanOptionalAction, default=False)
    p.add_argument("--remove-llm-prefixes", action=argparse.BooleanOptionalAction, default=False)
    p.add_argument("--skip-audio", action=argparse.BooleanOptionalAction, default=False)
    p.add_argument("--audio-durations", default=None)
    p.add_argument("--with-audio", action=argparse.BooleanOptionalAction, default=False,
                   help=argparse.SUPPRESS)
    p.add_argument("--load-text-encoder-in-8bit", action=argparse.BooleanOptionalAction,
                   default=False)
    p.add_argument("--reference-downscale-factor", type=int, default=1)
    p.add_argument("--reference-temporal-scale-factor", type=int, default=1)
    p.add_argument("--overwrite", action=argparse.BooleanOptionalAction, default=False)
    return p


if __name__ == "__main__":
    build_parser().parse_args()
    raise SystemExit("look-alike checkout: use the simulated preprocessor")
'''


def write_process_dataset(root: Path) -> Path:
    """scripts/process_dataset.py of a look-alike checkout at `root`."""
    path = root / TRAINER_REL / "scripts" / "process_dataset.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(PROCESS_DATASET_SCRIPT, encoding="utf-8")
    return path


def load_parser(script: Path):
    """The look-alike script's argparse parser, read from the file (tests, simulator)."""
    namespace: dict = {"__name__": "lookalike_process_dataset"}
    exec(compile(Path(script).read_text(encoding="utf-8"), str(script), "exec"), namespace)
    return namespace["build_parser"]()
