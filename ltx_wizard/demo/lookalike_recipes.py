"""Look-alike recipe configs beside the two t2v files: one per family of the trainer's recipes.

The real checkout ships a recipe per mode (image-to-video, IC-LoRA, audio-to-video, text-to-audio,
inpainting, extension, ...), each the standard t2v file with its own `training_strategy` block,
validation samples that carry conditioning media, and sometimes its own LoRA targets and steps.
These are written here in the wizard's own words and values, with the real files' structure
(sections, nesting, flow lists, comments, nulls), so that `plan --recipe`, the data rule and the
simulated trainer meet the same shapes. None has a low-VRAM twin, as in the real checkout.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_MEDIA = re.compile(r'"/path/to/([\w.-]+\.(?:png|mp4|wav))"')


@dataclass(frozen=True)
class LookalikeRecipe:
    name: str
    title: str
    strategy: str  # the training_strategy block (indented body)
    samples: str  # the validation.samples list (indented body)
    validation_flags: str = ""  # extra validation keys, e.g. generate_audio: false
    target_modules: str = '["to_k", "to_q", "to_v", "to_out.0"]'
    learning_rate: str = "1e-4"
    steps: int = 2000
    keep_last_n: int = -1
    tags: str = '["lookalike", "lora"]'


_VIDEO = """\
  video:
    is_generated: true   # denoised and in the loss
    latents_dir: "latents"
"""
_AUDIO_GENERATED = """\
  audio:
    is_generated: true
    latents_dir: "audio_latents"
"""

RECIPES = (
    LookalikeRecipe(
        name="i2v_lora",
        title="Image-to-video LoRA (with audio): the first frame is given, the rest is generated.",
        strategy=_VIDEO
        + """\
    conditions:
      # frame 0 stays clean (no loss) on some of the steps
      - type: first_frame
        probability: 0.5
"""
        + _AUDIO_GENERATED,
        samples="""\
    - prompt: "A red kite over a grey beach, slow pan, wind and surf"
      conditions:
        - type: first_frame
          image_or_video: "/path/to/first_frame_1.png"   # replace with your own image
    - prompt: "A cat walks across a sunlit kitchen floor, soft footsteps"
      conditions:
        - type: first_frame
          image_or_video: "/path/to/first_frame_2.png"
""",
        tags='["lookalike", "lora", "i2v"]',
    ),
    LookalikeRecipe(
        name="v2v_ic_lora",
        title="Video-to-video IC-LoRA: a reference clip is concatenated to the target (no audio).",
        strategy="""\
  video:
    is_generated: true
    latents_dir: "latents"
    conditions:
      # reference latents: a folder of their own under the data root
      - type: reference
        latents_dir: "reference_latents"
        probability: 1.0
      - type: first_frame
        probability: 0.2
""",
        samples="""\
    - prompt: "A red kite over a grey beach, slow pan, wind and surf"
      conditions:
        - type: reference
          video: "/path/to/reference_1.mp4"   # replace with your own clip
          downscale_factor: 1
          include_in_output: true
""",
        validation_flags="  generate_audio: false\n",
        target_modules="""
    - "attn1.to_k"
    - "attn1.to_q"
    - "attn1.to_v"
    - "attn1.to_out.0"
    - "ff.net.0.proj\"""",
        learning_rate="2e-4",
        steps=3000,
        keep_last_n=3,
        tags='["lookalike", "ic-lora", "v2v"]',
    ),
    LookalikeRecipe(
        name="a2v_lora",
        title="Audio-to-video LoRA: the audio is given (kept clean), the video is generated.",
        strategy=_VIDEO
        + """\
  audio:
    is_generated: false   # conditioning only: read, never denoised
    latents_dir: "audio_latents"
""",
        samples="""\
    - prompt: "Rain on a tin roof, a street lamp flickers"
      conditions:
        - type: audio_to_video
          audio: "/path/to/rain_1.wav"   # replace with your own sound
""",
        validation_flags="  generate_audio: false\n  generate_video: true\n",
        tags='["lookalike", "lora", "a2v"]',
    ),
    LookalikeRecipe(
        name="t2a_lora",
        title="Text-to-audio LoRA: audio only, no video latents read.",
        strategy=_AUDIO_GENERATED,
        samples="""\
    - prompt: "A slow piano phrase in a large empty hall"
    - prompt: "Bright synth arpeggios over a steady kick drum"
""",
        validation_flags="  generate_video: false\n",
        target_modules='["audio_attn1.to_k", "audio_attn1.to_q", "audio_attn1.to_v", "audio_ff.net.0.proj"]',
        learning_rate="2e-4",
        steps=3000,
        keep_last_n=3,
        tags='["lookalike", "lora", "t2a"]',
    ),
    LookalikeRecipe(
        name="video_inpainting_lora",
        title="Video inpainting LoRA: a per-sample mask says which tokens stay clean (no audio).",
        strategy="""\
  video:
    is_generated: true
    latents_dir: "latents"
    conditions:
      - type: mask
        mask_dir: "video_masks"   # one mask file per sample, same names as latents/
        probability: 1.0
""",
        samples="""\
    - prompt: "A red kite over a grey beach, slow pan, wind and surf"
      conditions:
        - type: mask
          video: "/path/to/inpaint_source_1.mp4"
          mask: "/path/to/inpaint_mask_1.mp4"
""",
        validation_flags="  generate_audio: false\n",
        target_modules='["attn1.to_k", "attn1.to_q", "attn1.to_v", "attn1.to_out.0"]',
        tags='["lookalike", "lora", "inpainting"]',
    ),
    LookalikeRecipe(
        name="video_extend_lora",
        title="Video extension LoRA (with audio): the first latent frames are given.",
        strategy=_VIDEO
        + """\
    conditions:
      - type: prefix
        temporal_boundary: 8   # latent frames kept clean
        probability: 1.0
"""
        + _AUDIO_GENERATED,
        samples="""\
    - prompt: "A red kite over a grey beach, slow pan, wind and surf"
      conditions:
        - type: prefix
          video: "/path/to/prefix_1.mp4"
          # frames given as they are; keep it shorter than validation.video_dims' frames
          num_frames: 17
    - prompt: "A cat walks across a sunlit kitchen floor, soft footsteps"
      conditions:
        - type: prefix
          video: "/path/to/prefix_2.mp4"
          num_frames: 17
""",
        tags='["lookalike", "lora", "extend"]',
    ),
)


def strategy_block(r: LookalikeRecipe) -> str:
    """The recipe's `training_strategy` section, as its file holds it."""
    return f'training_strategy:\n  name: "flexible"\n{r.strategy}'


def recipe_text(r: LookalikeRecipe) -> str:
    """A recipe file: the standard t2v structure with the recipe's own blocks."""
    modules = r.target_modules if r.target_modules.startswith("\n") else f" {r.target_modules}"
    return f"""\
# ===========================================================================
# {r.title}
# Look-alike written by ltx-wizard for tests and the demo.
# ===========================================================================

model:
  model_path: "/path/to/ltx-2-checkpoint.safetensors"
  text_encoder_path: "/path/to/gemma"
  training_mode: "lora"
  load_checkpoint: null

lora:
  rank: 32
  alpha: 32
  dropout: 0.0
  target_modules:{modules}

{strategy_block(r)}
optimization:
  learning_rate: {r.learning_rate}
  steps: {r.steps}
  batch_size: 1
  gradient_accumulation_steps: 1
  max_grad_norm: 1.0
  optimizer_type: "adamw"
  scheduler_type: "linear"
  scheduler_params: {{}}
  enable_gradient_checkpointing: true

acceleration:
  mixed_precision_mode: "bf16"
  quantization: null
  load_text_encoder_in_8bit: false
  offload_optimizer_during_validation: false

data:
  preprocessed_data_root: "/path/to/preprocessed/.precomputed"
  num_dataloader_workers: 2

validation:
  samples:
{r.samples}  negative_prompt: "worst quality, blurry"
  video_dims: [576, 576, 89]  # width, height, frames
  frame_rate: 25.0
  seed: 42
  inference_steps: 30
  interval: 250
  video_cfg_scale: 3.0
  audio_cfg_scale: 7.0
  stg_blocks: [28]
{r.validation_flags}  skip_initial_validation: false

checkpoints:
  interval: 250
  keep_last_n: {r.keep_last_n}
  precision: bfloat16

flow_matching:
  timestep_sampling_mode: "shifted_logit_normal"
  timestep_sampling_params: {{ }}

hub:
  push_to_hub: false
  hub_model_id: null

wandb:
  enabled: false
  project: "ltx-2-trainer"
  entity: null
  tags: {r.tags}
  log_validation_videos: true

seed: 42
output_dir: "outputs/{r.name}"
"""


# The first bytes of each container (what validation_media.container_of reads), then filler: the
# simulated trainer reads no further, as the real readers would.
MEDIA_HEADS = {
    ".png": b"\x89PNG\r\n\x1a\n",
    ".mp4": b"\x00\x00\x00\x18ftypisom",
    ".wav": b"RIFF\x24\x00\x00\x00WAVEfmt ",
    ".pt": b"PK\x03\x04",
}


def write_medium(path: Path) -> Path:
    """A tiny real file of its suffix: an image, a video or a sound that decodes (the wizard
    decodes each validation medium as the trainer will); a .pt starts as torch.save's zip."""
    from ltx_wizard.demo.tiny_video import write_render

    path.parent.mkdir(parents=True, exist_ok=True)
    suffix = path.suffix.lower()
    if suffix == ".pt":
        path.write_bytes(MEDIA_HEADS[".pt"] + b"look-alike media\n")
        return path
    written = write_render(path, path.stem, 7, None, 1 if suffix == ".png" else 9, video=suffix != ".wav")
    assert written == path, (written, path)
    return path


def media_names(text: str) -> list[str]:
    """The file names of a recipe's validation media placeholders, in order."""
    return list(dict.fromkeys(_MEDIA.findall(text)))


def with_media(text: str, folder: Path) -> str:
    """`text` with its validation media placeholders pointing at small files written in `folder`."""
    for name in media_names(text):
        write_medium(folder / name)
    return _MEDIA.sub(lambda m: f'"{folder / m.group(1)}"', text)
