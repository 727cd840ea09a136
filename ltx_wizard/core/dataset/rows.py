"""The trainer's dataset file (CSV, JSON or JSONL): its rows, and which column plays which role.

Mirrors ltx-trainer scripts/process_dataset.py (_validate_dataset_file, _KNOWN_ROLES,
_LEGACY_ALIASES, _resolve_columns) and scripts/process_videos.py (detect_dataset_columns,
_load_paths_from_dataset, _output_relative): the columns come from the CSV header or the first
JSON/JSONL entry, media paths are relative to the dataset file's folder, and each sample's
outputs are named after its `video` path with `.pt`.
"""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path, PurePosixPath
from typing import Any, Mapping

from ltx_wizard.core.base.records import record
from ltx_wizard.core.io.bounded import decode_text, read_bytes
from ltx_wizard.core.dataset.sources import required_folders
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.inputs.model_paths import resolve_user_path

DATASET_MAX_BYTES = 64 * 2**20  # a caption per clip: far below this for any real dataset
SUFFIXES = (".csv", ".json", ".jsonl")
# mirrors process_dataset.py _KNOWN_ROLES and _LEGACY_ALIASES
ROLES = ("video", "audio", "reference_video", "reference_audio", "video_mask", "audio_mask",
         "caption")
LEGACY_ALIASES = {"media_path": "video", "ref_media_path": "reference_video"}
MEDIA_ROLES = ("video", "audio", "reference_video", "reference_audio", "video_mask", "audio_mask")
# the output folder process_dataset.py writes for each role (its module docstring's table)
FOLDER_ROLE = {
    "latents": "video",
    "conditions": "caption",
    "audio_latents": "audio",
    "reference_latents": "reference_video",
    "reference_audio_latents": "reference_audio",
    "video_masks": "video_mask",
    "audio_masks": "audio_mask",
}


@record
class DatasetFile:
    path: Path
    columns: tuple[str, ...]
    roles: dict[str, str]  # role -> column name
    rows: tuple[dict[str, str], ...]

    @property
    def folder(self) -> Path:
        return self.path.parent

    def media(self, row: Mapping[str, str], role: str) -> Path:
        # mirrors process_videos.py _load_paths_from_dataset: data_root / value.strip()
        return self.folder / str(row[self.roles[role]]).strip()

    def output_rel(self, row: Mapping[str, str]) -> str:
        """The `.pt` name every output folder uses for this row (process_videos.py
        _output_relative of its `video`, else `audio`, path)."""
        role = "video" if "video" in self.roles else "audio"
        path = self.media(row, role)
        try:
            rel = path.relative_to(self.folder)
        except ValueError:
            rel = Path(*path.parts[1:]) if path.is_absolute() else path
        return str(PurePosixPath(*rel.parts).with_suffix(".pt"))


def is_dataset_file(text: str | os.PathLike) -> bool:
    """A path the Paths screen and `plan` read as a dataset file rather than a data root."""
    return Path(os.fspath(text).strip()).suffix.lower() in SUFFIXES


def read_dataset_file(path: str | os.PathLike, *, cwd: str | os.PathLike | None = None) -> DatasetFile:
    where = resolve_user_path(path, what="dataset file", cwd=cwd)
    # mirrors process_dataset.py _validate_dataset_file; the loaders compare the suffix exactly
    if where.suffix not in SUFFIXES:
        raise UsageError(f"dataset file {where}: the trainer reads .csv, .json or .jsonl (lower "
                         "case) files only: rename or convert it")
    text = decode_text(read_bytes(where, what="dataset file", limit=DATASET_MAX_BYTES),
                       what="dataset file", path=where)
    columns, rows = _parse(where, text)
    roles = resolve_roles(columns)
    return DatasetFile(path=where, columns=tuple(columns), roles=roles, rows=tuple(rows))


def resolve_roles(columns: list[str] | tuple[str, ...]) -> dict[str, str]:
    # mirrors process_dataset.py _resolve_columns (without the --*-column overrides)
    roles: dict[str, str] = {}
    for col in columns:
        role = LEGACY_ALIASES.get(col, col)
        if role in ROLES:
            roles[role] = col
    return roles


def _parse(path: Path, text: str) -> tuple[list[str], list[dict[str, str]]]:
    if path.suffix == ".csv":
        reader = csv.DictReader(io.StringIO(text))
        columns = [c for c in (reader.fieldnames or [])]
        return columns, [_row(path, i, r) for i, r in enumerate(reader, start=2)]
    if path.suffix == ".json":
        data = _json(path, text, "the file")
        if not isinstance(data, list):
            raise UsageError(f"dataset file {path}: JSON file must contain a list of objects "
                             "(one per clip): wrap the entries in [ ]")
        entries = data
    else:
        entries = [_json(path, line, f"line {n}") for n, line in
                   enumerate(text.splitlines(), start=1) if line.strip()]
    rows = [_row(path, i, e) for i, e in enumerate(entries, start=1)]
    return (list(entries[0].keys()) if entries else []), rows


def _json(path: Path, text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        raise UsageError(f"dataset file {path}: {where} is not valid JSON ({exc}): fix it") from None


def _row(path: Path, number: int, entry: object) -> dict[str, str]:
    if not isinstance(entry, dict):
        raise UsageError(f"dataset file {path}: entry {number} is not an object of column: "
                         "value pairs: fix it")
    return {str(k): "" if v is None else str(v) for k, v in entry.items()}


def required_roles(strategy: Mapping[str, Any] | None) -> list[str]:
    """The dataset columns a recipe needs, from the folders its training_strategy reads.

    Audio latents come from the `audio` column or, without one, from each video's own sound
    (process_dataset.py auto_audio), so they need no column of their own when there is video.
    """
    folders = list(required_folders(strategy))
    if "latents" not in folders:
        # audio-only data needs --audio-durations buckets, which the wizard does not plan
        raise UsageError("this recipe trains on audio only: preprocess it with the trainer's "
                         "process_dataset.py --audio-durations yourself, then pass the "
                         ".precomputed folder instead of the dataset file")
    roles: list[str] = []
    for folder in folders:
        role = FOLDER_ROLE.get(folder)
        if role is None:
            raise UsageError(f"the recipe reads {folder}/, which process_dataset.py does not "
                             "write from a dataset column: preprocess it yourself and pass the "
                             ".precomputed folder instead of the dataset file")
        if role != "audio":  # from the audio column, or else each video's own sound
            roles.append(role)
    return roles
