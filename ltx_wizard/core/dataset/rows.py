"""The trainer's dataset file (CSV, JSON or JSONL): its rows, and which column plays which role.

Mirrors ltx-trainer scripts/process_dataset.py (_validate_dataset_file, _KNOWN_ROLES,
_LEGACY_ALIASES, _resolve_columns) and scripts/process_videos.py (detect_dataset_columns,
_load_paths_from_dataset, _output_relative): the columns come from the CSV header or the first
JSON/JSONL entry, media paths are relative to the dataset file's folder, and each sample's
outputs are named after its `video` path with `.pt`.

The file is read as those scripts read it (through core/io/bounded.py, so a FIFO, a 5 GB file or
a 2,000-deep nesting is one message): CSV as pandas.read_csv does (a UTF-8 byte-order mark
skipped, an unclosed quote or a row wider than the header refused, an empty cell a missing
value), JSON and JSONL as json.load / json.loads after open(encoding="utf-8") do (a byte-order
mark refused, JSONL split on line ends only, a blank JSONL line refused). Whatever would stop the
trainer's preprocessing is refused here with the entry or line that holds it.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath
from typing import Any, Mapping

from ltx_wizard.core.base.records import record
from ltx_wizard.core.io.bounded import (
    csv_records,
    decode_utf8,
    loads_json,
    path_length_problem,
    read_bytes,
)
from ltx_wizard.core.dataset.sources import required_folders
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.inputs.model_paths import resolve_user_path
from ltx_wizard.core.base.text_safety import clip

DATASET_MAX_BYTES = 64 * 2**20  # a caption per clip: far below this for any real dataset
CSV_READER = "the trainer's CSV reader (pandas)"
JSON_READER = 'the trainer\'s JSON loader (json.load after open(encoding="utf-8"))'
# pandas.read_csv's default missing-value spellings (its na_values): a cell reading exactly one
# of these is NaN to the trainer, as an empty cell is
PANDAS_NA = frozenset(
    {
        "#N/A",
        "#N/A N/A",
        "#NA",
        "-1.#IND",
        "-1.#QNAN",
        "-NaN",
        "-nan",
        "1.#IND",
        "1.#QNAN",
        "<NA>",
        "N/A",
        "NA",
        "NULL",
        "NaN",
        "None",
        "n/a",
        "nan",
        "null",
    }
)
SUFFIXES = (".csv", ".json", ".jsonl")
# mirrors process_dataset.py _KNOWN_ROLES and _LEGACY_ALIASES
ROLES = ("video", "audio", "reference_video", "reference_audio", "video_mask", "audio_mask", "caption")
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


def is_dataset_file(text: str | os.PathLike[str]) -> bool:
    """A path the Paths screen and `plan` read as a dataset file rather than a data root."""
    return Path(os.fspath(text).strip()).suffix.lower() in SUFFIXES


def read_dataset_file(
    path: str | os.PathLike[str], *, cwd: str | os.PathLike[str] | None = None, limit: int = DATASET_MAX_BYTES
) -> DatasetFile:
    """The dataset file read as the trainer's scripts read it, through the bounded reader: every
    way the trainer would stop on it is one UsageError naming the entry (or line) and the fix."""
    where = resolve_user_path(path, what="dataset file", cwd=cwd)
    # mirrors process_dataset.py _validate_dataset_file; the loaders compare the suffix exactly
    if where.suffix not in SUFFIXES:
        raise UsageError(
            f"dataset file {where}: the trainer reads .csv, .json or .jsonl (lower "
            "case) files only: rename or convert it"
        )
    data = read_bytes(where, what="dataset file", limit=limit)
    columns, rows = _parse(where, data, limit)
    return DatasetFile(path=where, columns=tuple(columns), roles=resolve_roles(columns), rows=tuple(rows))


def resolve_roles(columns: list[str] | tuple[str, ...]) -> dict[str, str]:
    # mirrors process_dataset.py _resolve_columns (without the --*-column overrides)
    roles: dict[str, str] = {}
    for col in columns:
        role = LEGACY_ALIASES.get(col, col)
        if role in ROLES:
            roles[role] = col
    return roles


def _parse(path: Path, data: bytes, limit: int) -> tuple[list[str], list[dict[str, str]]]:
    what = f"dataset file {path}"
    if path.suffix == ".csv":
        # process_videos.py _load_paths_from_dataset / process_captions.py
        # _load_caption_data_from_csv: pandas.read_csv, which skips a UTF-8 byte-order mark
        text = decode_utf8(data, what="dataset file", path=path, reader=CSV_READER, bom_ok=True)
        return _csv_rows(path, csv_records(text, what=what, field_cap=limit))
    # the JSON loaders open the file with encoding="utf-8": a BOM reaches json.loads and stops it
    text = decode_utf8(data, what="dataset file", path=path, reader=JSON_READER)
    if path.suffix == ".json":
        # process_videos.py _load_paths_from_dataset: json.load, then a list of objects
        data_ = _json(path, text, "the file")
        if not isinstance(data_, list):
            raise UsageError(
                f"{what}: JSON file must contain a list of objects (one per clip): wrap the entries in [ ]"
            )
        entries = [(f"entry {n}", e) for n, e in enumerate(data_, start=1)]
    else:
        entries = [
            (f"entry {n} (line {line})", _json(path, body, f"line {line}"))
            for n, (line, body) in enumerate(_jsonl_lines(path, text), start=1)
        ]
    columns = list(entries[0][1].keys()) if entries and isinstance(entries[0][1], dict) else []
    roles = resolve_roles(columns)
    return columns, [_json_row(path, label, e, roles) for label, e in entries]


def _jsonl_lines(path: Path, text: str) -> list[tuple[int, str]]:
    """(line number, text) of each line as `for line in open(f, encoding="utf-8")` yields them
    (process_videos.py _load_paths_from_dataset, .jsonl): universal newlines only, so a NEL or
    U+2028 inside a caption stays in its line; a blank line is one json.loads stops on."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the newline that ends the last line
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            raise UsageError(
                f"dataset file {path}: line {number} is blank, and the trainer's "
                "JSONL loader stops on it (one JSON object per line): remove it"
            )
    return list(enumerate(lines, start=1))


def _json(path: Path, text: str, where: str) -> Any:
    # nesting bounded by the parser's own limit (caught); each kept value is type-checked below
    return loads_json(
        text,
        what=f"dataset file {path}: {where}",
        max_depth=None,
        fix="not a dataset file the trainer reads; fix it",
    )


def _csv_rows(path: Path, records: list[tuple[int, list[str]]]) -> tuple[list[str], list[dict[str, str]]]:
    records = [(line, fields) for line, fields in records if fields]  # pandas skips blank lines
    if not records:
        return [], []
    columns = records[0][1]
    roles = resolve_roles(columns)
    rows = []
    for number, (line, fields) in enumerate(records[1:], start=1):
        if len(fields) > len(columns):
            # pandas' C parser: "Expected N fields in line L, saw M"
            raise UsageError(
                f"dataset file {path}: line {line} has {len(fields)} cells but the "
                f"header has {len(columns)}, which the trainer's CSV reader refuses: "
                "quote the cell that holds a comma"
            )
        cells = dict(zip(columns, fields + [""] * (len(columns) - len(fields))))
        label = f"entry {number} (line {line})"
        for role, column in roles.items():
            _csv_cell(path, label, column, role, cells[column])
        rows.append(cells)
    return columns, rows


def _csv_cell(path: Path, label: str, column: str, role: str, value: str) -> None:
    # pandas reads an empty cell, or one spelling a missing value, as NaN: a media path
    # str(NaN).strip() is "nan" (process_videos.py), a caption NaN fails in process_captions.py
    if value == "" or value in PANDAS_NA:
        shown = "is empty" if value == "" else f"reads {value!r}, a missing value to pandas"
        raise UsageError(
            f"dataset file {path}: {label}: the {column} cell {shown}, which the "
            f"trainer's CSV reader cannot use as a {_needs(role)}: fill it in, or "
            "remove the row"
        )
    if role in MEDIA_ROLES:
        _media_path(path, label, column, value)


def _json_row(path: Path, label: str, entry: object, roles: Mapping[str, str]) -> dict[str, str]:
    if not isinstance(entry, dict):
        raise UsageError(f"dataset file {path}: {label} is not an object of column: value pairs: fix it")
    row: dict[str, str] = {}
    cells: dict[str, object] = entry  # a JSON object's keys are text
    for key, value in cells.items():
        role = LEGACY_ALIASES.get(key, key)
        if role in roles and roles[role] == key:
            # process_videos.py `entry[column].strip()`, process_captions.py prompt + caption:
            # both need text
            if not isinstance(value, str):
                raise UsageError(
                    f"dataset file {path}: {label}: {key} is {_kind(value)}, not "
                    f"text, which the trainer cannot use as a {_needs(role)}: give "
                    "it as a quoted string"
                )
            if role in MEDIA_ROLES:
                if not value.strip():
                    raise UsageError(
                        f"dataset file {path}: {label}: the {key} value is empty, "
                        "which the trainer cannot use as a media path: fill it in, "
                        "or remove the entry"
                    )
                _media_path(path, label, key, value)
        row[str(key)] = value if isinstance(value, str) else _scalar(value)
    return row


def _scalar(value: object) -> str:
    """Another column's value, kept as text (the trainer ignores it; nested ones are dropped)."""
    if value is None or isinstance(value, (dict, list)):
        return ""
    return str(value)


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    return "a list" if isinstance(value, list) else "an object"


def _needs(role: str) -> str:
    return "caption" if role == "caption" else "media path"


def _media_path(path: Path, label: str, column: str, value: str) -> None:
    """A media path longer than the system takes (as the trainer joins it to the dataset file's
    folder) is named here, never met as an OSError deeper down."""
    problem = path_length_problem(os.path.join(os.fspath(path.parent), value.strip()))
    if problem:
        raise UsageError(
            f"dataset file {path}: {label}: the {column} path is too long with its "
            f"folder ({problem}): {clip(value.strip(), 60)}: shorten it"
        )


def required_roles(strategy: Mapping[str, Any] | None) -> list[str]:
    """The dataset columns a recipe needs, from the folders its training_strategy reads.

    Audio latents come from the `audio` column or, without one, from each video's own sound
    (process_dataset.py auto_audio), so they need no column of their own when there is video.
    """
    folders = list(required_folders(strategy))
    if "latents" not in folders:
        # audio-only data needs --audio-durations buckets, which the wizard does not plan
        raise UsageError(
            "this recipe trains on audio only: preprocess it with the trainer's "
            "process_dataset.py --audio-durations yourself, then pass the "
            ".precomputed folder instead of the dataset file"
        )
    roles: list[str] = []
    for folder in folders:
        role = FOLDER_ROLE.get(folder)
        if role is None:
            raise UsageError(
                f"the recipe reads {folder}/, which process_dataset.py does not "
                "write from a dataset column: preprocess it yourself and pass the "
                ".precomputed folder instead of the dataset file"
            )
        if role != "audio":  # from the audio column, or else each video's own sound
            roles.append(role)
    return roles
