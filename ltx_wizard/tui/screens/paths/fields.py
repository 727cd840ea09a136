"""The Paths screen's fields: their names, labels, placeholders and the hints an empty one shows;
and the screen's F1 help (here beside its fields: paths/__init__.py is at the size limit)."""

from __future__ import annotations

from ltx_wizard.core.base import phases

FIELDS = (
    ("checkpoint", "LTX-2 checkpoint (.safetensors)", "/models/ltx-2.safetensors"),
    ("text_encoder", "Gemma text encoder (folder, or packed .safetensors for a split pack)", "/models/gemma"),
    ("video_vae", "Video VAE (split pack only)", ""),
    ("audio_vae", "Audio VAE (split pack only)", ""),
    ("data_root", "Preprocessed data root, or your clips' dataset file (.json, .jsonl, .csv)", ""),
    ("trainer_root", "LTX-2 trainer checkout", "~/LTX-2"),
)
REQUIRED = ("checkpoint", "text_encoder", "data_root", "trainer_root")
EMPTY_HINT = {
    "checkpoint": "required: type the path of the LTX .safetensors, or F2 to pick one found on disk "
    "(none yet? F3 downloads the ones the trainer's docs name)",
    "text_encoder": "required: type the Gemma folder that matches the checkpoint, or F2 to pick one",
    "data_root": "required: the .precomputed folder the trainer's scripts/process_dataset.py wrote, "
    "or the dataset.json of your clips (preprocessed after approval)",
    "trainer_root": "required: your LTX-2 clone (git clone https://github.com/Lightricks/LTX-2, "
    "then uv sync in it)",
    "video_vae": "required for a split pack: type its video VAE .safetensors, or F2",
    "audio_vae": "required for a split pack: type its audio VAE .safetensors, or F2",
}
VAE_FIELDS = ("video_vae", "audio_vae")
# The choice offered when some or all clips have no sound but the shipped config trains audio
# (plan --video-only).
VIDEO_ONLY_LABEL = (
    "Train video only (the recipe trains audio, and clips without sound are left out): "
    "training_strategy.audio: null"
)
VIDEO_ONLY_OPTION = "the Video only box below"

# The form's text fields: each holds one PlanRequest field as text.
TEXT_FIELDS = ("resolution_buckets", "lora_trigger", "precomputed_dir")

# This screen's F1 help (dialogs/help.py shows it): what it does and what comes next.
PATHS_HELP = (
    phases.PATHS.f1_title,
    """\
**What it does.** Checks each path as you type, reading file headers only (milliseconds).

**Fields.**
- *Checkpoint*: the LTX `.safetensors` (a unified file, or the transformer of a split pack).
- *Gemma text encoder*: the Gemma folder that matches the checkpoint (a packed `.safetensors`
  for a split pack). The check says when the two do not fit together.
- *Video/Audio VAE*: shown only for a split pack, which needs both.
- *Data root*: the folder the trainer's `scripts/process_dataset.py` wrote (it holds
  `latents/` and `conditions/`; by default `.precomputed` beside your dataset file), or the
  dataset file itself (`dataset.json`, `.jsonl` or `.csv` with `caption` and `video` columns):
  its clips are checked now (frames, size, rotation and sound, read as the trainer reads them)
  and encoded after approval, one sample before autotune and all of them after.
- *Train video only*: offered under the data field when some or all clips have no sound but the
  recipe trains audio (the trainer leaves those clips out); ticked, every clip trains without
  audio: `config.yaml` gets `training_strategy.audio: null` (`plan --video-only`).
- *Bucket, trigger word, output folder*: shown for a dataset file: the resolution bucket WxHxF
  (sides multiples of 32, frames 8k+1; default 960x544x49), an optional trigger word
  (preprocessing prepends it to every caption) and where the latents go (default: `.precomputed`
  beside the dataset file).
- *Trainer checkout*: your clone of LTX-2 (the monorepo root, where `uv sync` ran).
- *Training mode*: LoRA, or a full fine-tune (2+ GPUs of the 80GB+ tier).
- *Recipe*: the trainer's shipped configs your checkout has (t2v, i2v, IC-LoRA, audio modes...),
  first the one your answer to "What should the model learn?" chose; the data root must hold the
  folders it reads (`plan --recipe NAME`).
- *Validation media*, shown only for a recipe whose validation samples read media (a first
  frame, a reference video, a sound): use your files (typed in sample order, `;` between, or 1-9
  to take one of the dataset file's media listed under the box), prompts only (validation
  without conditioning media), or no validation. *Validation prompts*: one per line, replacing
  the shipped ones (empty keeps them).

**Keys.** Tab moves between fields, → accepts a path completion, F2 picks from the files found in
`/models`, `~/models`, `$LTX_MODELS_DIR` and the Hugging Face cache. F3 offers the model files the
trainer's docs name for download (size, free disk, gated terms, token), one at a time, each only
after y. Esc goes back.

**Next.** Continue (ctrl+n) prepares the plan; nothing is written yet.""",
)
