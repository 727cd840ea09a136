"""The Paths screen's bucket, trigger word and output folder: shown when the data field holds a
dataset file (clips the wizard preprocesses after approval), hidden for a .precomputed root."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, Static


def is_dataset(value: str) -> bool:
    return value.strip().lower().endswith((".json", ".jsonl", ".csv"))


def _text(value: object) -> str:
    return "" if value is None else str(value)


def dataset_options(request) -> ComposeResult:
    """Bucket and trigger word: shown when the data is a dataset file (clips to preprocess)."""
    with Vertical(id="dataset-options") as box:
        box.display = is_dataset(_text(request.data_root))
        yield Static(
            "Resolution bucket WxHxF (sides multiples of 32, frames 8k+1; default "
            "960x544x49) and an optional trigger word",
            classes="field-label",
        )
        with Horizontal(id="dataset-inputs"):
            yield Input(
                _text(request.resolution_buckets), placeholder="960x544x49", id="buckets", compact=True
            )
            yield Input(
                _text(request.lora_trigger), placeholder="trigger word (optional)", id="trigger", compact=True
            )
        yield Input(
            _text(request.precomputed_dir),
            id="precomputed-dir",
            compact=True,
            placeholder="output folder (default: .precomputed beside the dataset file)",
        )
