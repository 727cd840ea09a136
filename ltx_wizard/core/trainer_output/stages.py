"""The long stages of a run's set-up, from the one log line the trainer logs as it starts each.

Matched on the message after the level column (line_parser.py hands over the first line of each
record); leading emoji, spaces and the trainer's `[rank N]` prefix are dropped first. What a
running trial is doing (autotune's PhaseTracker) is built on these.
"""

from __future__ import annotations

import re

# (message prefix, phase); leading emoji and spaces are dropped before matching.
MARKS: tuple[tuple[str, str], ...] = (
    # validation_runner.py ValidationRunner._cache_prompt_embeddings: "Loading text encoder for
    # validation embedding caching..." (DEBUG); older trainer.py
    # LtxvTrainer._load_text_encoder_and_cache_embeddings: "Loading text encoder..."
    ("Loading text encoder", "text_encoder"),
    # the same two functions: "Pre-computing embeddings for {n} validation prompts..."
    ("Pre-computing embeddings for ", "prompts"),
    # validation_runner.py ValidationRunner._encode_conditioning_media:
    # "Pre-encoding conditioning media for {n} validation samples..."
    ("Pre-encoding conditioning media for ", "media"),
    # model_loader.py load_model: "Loading LTX-2 model from {path}" (older trainers' _load_models)
    ("Loading LTX-2 model from ", "loading"),
    # trainer.py LtxvTrainer._load_models: "Loading transformer..." (DEBUG; older trainers: the
    # same line from model_loader.py load_model)
    ("Loading transformer...", "loading"),
    # trainer.py LtxvTrainer._load_models:
    # 'Quantizing model with "{quantization}". This may take a while...'
    ('Quantizing model with "', "quantizing"),
    # trainer.py LtxvTrainer.train: "🚀 Starting training..." or
    # "🚀 Resuming training from step {initial_step} → {steps}"
    ("Starting training...", "training"),
    ("Resuming training from step ", "training"),
)
_RANK = re.compile(r"^\[rank \d+\]\s*")
_LEAD = re.compile(r"^[^\w\"]+")  # emoji and spaces before the words


def message_phase(message: str) -> str | None:
    """The phase a log message starts (MARKS), or None."""
    text = _LEAD.sub("", _RANK.sub("", message, count=1), count=1)
    for prefix, phase in MARKS:
        if text.startswith(prefix):
            return phase
    return None
