"""`<run>/dataset/prepare.json`: what prepare staged from where and each decision it took, so a
rerun and the screens can say what happened. Declared once in the run folder's codec
(core/io/run_codec.py); the stage that builds it (finish.py) hands its fields as a mapping, and
the write checks them against this declaration before a byte is written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

import msgspec

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.io import run_folder
from ltx_wizard.core.io.run_codec import declare


class Finding(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    clip: str
    kind: str  # clip_problems kinds ("rotated", "cropped", ...) and "no audio"
    text: str


class SharedSource(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A held-out scene whose source video also gave training samples (holdout.shared_sources)."""

    sample: str
    source: str
    training_samples: int


class PrepareRecord(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    version: int = 1
    source: str
    source_kind: str  # folder, video, dataset
    recipe: str
    captioner: str
    captioner_why: str
    lora_trigger: str | None
    captions: int
    captions_with_trigger: list[str]  # the clips whose caption already holds the trigger
    bucket: str
    dataset: str
    columns: list[str]
    samples: int
    trained: int  # what the trainer trains on of them
    silent_in_training: list[str]
    held_out: list[str]
    holdout: str | None
    holdout_why: str
    held_out_shared_source: list[SharedSource]
    linked: dict[str, str]  # staged path (relative) -> the user's file it links to
    split: dict[str, list[str]]  # clip -> the scenes it was split into
    rotated: dict[str, str]  # clip -> its upright copy
    audit: list[str]
    findings: list[Finding]
    audio_decode: str | None


PREPARE_FILE = declare(run_folder.PREPARE_RECORD, PrepareRecord)


def write_prepare_record(run_dir: Path, fields: Mapping[str, Any]) -> Path:
    """prepare.json from the finishing stage's fields, refused (naming the file) when one of
    them is not what the declaration says."""
    try:
        record = msgspec.convert(dict(fields), PrepareRecord, strict=True)
    except msgspec.ValidationError as exc:
        raise WizardError(f"{PREPARE_FILE.file.what} {PREPARE_FILE.file.path(run_dir)}: {exc}") from None
    return PREPARE_FILE.write(run_dir, record)


def read_prepare_record(run_dir: Path) -> PrepareRecord | None:
    """None when prepare has not run here; a refused file names itself and the fix."""
    return PREPARE_FILE.read(run_dir)
