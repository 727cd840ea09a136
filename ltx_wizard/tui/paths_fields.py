"""The Paths screen's fields: their names, labels, placeholders and the hints an empty one shows."""

from __future__ import annotations

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
# The choice offered when the data has no audio but the shipped config trains it (plan --video-only).
VIDEO_ONLY_LABEL = "Train video only (this data has no audio): training_strategy.audio: null"
VIDEO_ONLY_OPTION = "the Video only box below"

# The form's text fields: each holds one PlanRequest field as text.
TEXT_FIELDS = ("resolution_buckets", "lora_trigger", "precomputed_dir")
