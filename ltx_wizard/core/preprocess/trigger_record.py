"""The trigger word a data root's text embeddings were encoded with, recorded beside them.

process_captions.py prepends the `--lora-trigger` word to each caption before encoding it and
skips a sample whose conditions file exists unless `--overwrite` is given: a trigger word changed
after preprocessing would silently train on the old embeddings. The full preprocess therefore
records the word it encoded with (`.ltx-wizard-trigger.json` in the data root, a file the
trainer never reads), and a plan whose word differs re-encodes with --overwrite.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Iterable

from ltx_wizard.core.io.bounded import read_text
from ltx_wizard.core.io.safe_fs import write_text

RECORD = ".ltx-wizard-trigger.json"


def encoded_trigger(root: Path) -> tuple[bool, str | None]:
    """(known, word): whether the root says what it was encoded with, and the word (None: none)."""
    path = Path(root) / RECORD
    if not path.is_file():
        return False, None
    try:
        data = json.loads(read_text(path, what="trigger record", limit=64 * 1024))
    except (ValueError, OSError, Exception):  # a damaged record is no record
        return False, None
    if not isinstance(data, dict) or "lora_trigger" not in data:
        return False, None
    word = data["lora_trigger"]
    return True, word if isinstance(word, str) and word else None


def trigger_change(root: Path, wanted: str | None) -> str | None:
    """Why the root's embeddings must be re-encoded for `wanted`, or None (same word, or the
    root does not say which word it has)."""
    known, had = encoded_trigger(root)
    wanted = (wanted or "").strip() or None
    if not known or had == wanted:
        return None

    def said(word: str | None) -> str:
        return repr(word) if word else "no trigger word"

    return (
        f"its text embeddings were encoded with {said(had)}, this plan uses {said(wanted)}: "
        "the full preprocess re-encodes every sample with --overwrite"
    )


def record_trigger(root: Path, word: str | None) -> None:
    write_text(Path(root) / RECORD, json.dumps({"lora_trigger": (word or "").strip() or None}) + "\n")


def captions_with_trigger(captions: Iterable[tuple[str, str]], word: str | None) -> list[str]:
    """The clips (of (clip, caption) pairs) whose caption already holds the trigger word, as a
    whole word in any case and anywhere in it: process_captions.py CaptionsDataset prepends
    `f"{lora_trigger.strip()} "` to every caption, so theirs would carry it twice."""
    word = (word or "").strip()
    if not word:
        return []
    found = re.compile(rf"(?<!\w){re.escape(word)}(?!\w)", re.IGNORECASE)
    return [clip for clip, caption in captions if found.search(str(caption or ""))]


def trigger_doubled_text(word: str, clips: list[str], total: int) -> str:
    """The warning prepare and plan both give, from the clips captions_with_trigger found."""
    names = ", ".join(clips[:3]) + (f" (+{len(clips) - 3} more)" if len(clips) > 3 else "")
    return (
        f"{len(clips)} of {total} caption(s) already contain the trigger word {word!r} ({names}): "
        "--lora-trigger prepends it to every caption at preprocessing, so theirs would carry it "
        "twice; take it out of those captions"
    )
