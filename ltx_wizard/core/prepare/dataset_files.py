"""What prepare leaves in `<run>/dataset/`: dataset.json (the rows the trainer's preprocessing
reads, media paths relative to it), holdout.jsonl (the held-out rows, same columns, one JSON
object per line) and prepare.json (what was staged from where, and each decision, so a rerun
and the screens say what happened: prepare_record.py). Each written atomically inside the run folder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.dataset.rows import DATASET_MAX_BYTES
from ltx_wizard.core.io.bounded import read_text
from ltx_wizard.core.io.safe_fs import write_text
from ltx_wizard.core.prepare.holdout import HOLDOUT_FILE

DATASET_FILE = "dataset.json"  # the skill's name


def columns_of(rows: list[dict[str, str]], first: tuple[str, ...]) -> list[str]:
    """Every column any row has, the given ones first: the trainer reads a JSON file's columns
    from its first entry (process_videos.py detect_dataset_columns), so all rows carry all."""
    out = [c for c in first if any(c in r for r in rows)]
    for row in rows:
        out += [c for c in row if c not in out]
    return out


def uniform(rows: list[dict[str, str]], columns: list[str]) -> list[dict[str, str]]:
    return [{c: row.get(c, "") for c in columns} for row in rows]


def write_dataset(run_dir: Path, dataset_dir: Path, rows: list[dict[str, str]], columns: list[str]) -> Path:
    text = json.dumps(uniform(rows, columns), indent=2, ensure_ascii=False) + "\n"
    return write_text(dataset_dir / DATASET_FILE, text, root=run_dir)


def write_holdout(run_dir: Path, dataset_dir: Path, rows: list[dict[str, str]], columns: list[str]) -> Path:
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in uniform(rows, columns))
    return write_text(dataset_dir / HOLDOUT_FILE, text, root=run_dir)


def read_rows(path: Path) -> list[dict[str, Any]]:
    """dataset.json as written (after compute_reference.py added its column in place)."""
    try:
        data = json.loads(read_text(path, what="dataset file", limit=DATASET_MAX_BYTES))
    except ValueError as exc:
        raise UsageError(f"{path} is not valid JSON ({exc}): run prepare again") from None
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise UsageError(f"{path} is not a list of entries: run prepare again")
    return data
