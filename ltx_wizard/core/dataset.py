"""The preprocessed data root (data.preprocessed_data_root): which samples the trainer will see.

The trainer globs `**/*.pt` and keeps a sample only when every required folder has the same
relative path; there is no index file. Files present in some folders but not all are orphans:
they are silently skipped by the trainer, so they are reported here.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from ltx_wizard.core.errors import UsageError
from ltx_wizard.core.model_paths import require_directory, resolve_user_path

VIDEO_FOLDERS = ("latents", "conditions")
AUDIO_FOLDER = "audio_latents"


class DataRootInfo(BaseModel):
    model_config = ConfigDict(frozen=True)

    path: Path
    folders: tuple[str, ...]
    sample_count: int
    samples: tuple[str, ...]  # relative .pt paths, sorted, present in every folder
    orphans: tuple[str, ...]  # "folder/relative.pt" missing from at least one other folder

    def describe(self) -> str:
        text = (
            f"{self.sample_count} sample{'s' if self.sample_count != 1 else ''} in"
            f" {', '.join(self.folders)}"
        )
        if self.orphans:
            text += (
                f"; {len(self.orphans)} orphan file(s) skipped by the trainer (e.g."
                f" {self.orphans[0]})"
            )
        return text


WALK_MAX_DEPTH = 12  # preprocessed data nests a folder or two; deeper is a wrong root
WALK_MAX_ENTRIES = 2_000_000  # far above any real dataset; a link to / hits this first
WALK_MAX_S = 120.0


def _pt_files(folder: Path, *, max_s: float = WALK_MAX_S) -> set[str]:
    found: set[str] = set()
    deadline = time.monotonic() + max_s
    seen = 0
    # followlinks=False: a symlinked folder loop must not hang the scan; linked files still count.
    # Bounded in depth, entries and time: a folder linked to / must end with a message.
    for dirpath, dirs, files in os.walk(folder, followlinks=False):
        rel_dir = os.path.relpath(dirpath, folder)
        if rel_dir != "." and rel_dir.count(os.sep) + 1 >= WALK_MAX_DEPTH:
            dirs[:] = []
        seen += len(files) + len(dirs)
        if seen > WALK_MAX_ENTRIES or time.monotonic() > deadline:
            raise UsageError(
                f"{folder} holds too much to be a preprocessed data folder (stopped after "
                f"{seen} entries): pass the folder the preprocessing script wrote"
            )
        for name in files:
            if name.endswith(".pt"):
                found.add(name if rel_dir == "." else f"{rel_dir}/{name}".replace(os.sep, "/"))
    return found


def _hint_for(path: Path, missing: list[str]) -> str:
    for child in (".precomputed", "precomputed"):
        if all((path / child / m).is_dir() for m in missing):
            return f"did you mean {path / child}?"
    if path.name in VIDEO_FOLDERS + (AUDIO_FOLDER,):
        return f"pass its parent {path.parent}"
    return "run the trainer's preprocessing script first, then pass the folder it wrote"


def inspect_data_root(
    path: str | os.PathLike, *, with_audio: bool = False, cwd: str | os.PathLike | None = None
) -> DataRootInfo:
    root = resolve_user_path(path, what="data root", cwd=cwd)
    require_directory(root, what="data root")
    folders = VIDEO_FOLDERS + ((AUDIO_FOLDER,) if with_audio else ())
    missing = [f for f in folders if not (root / f).is_dir()]
    if missing:
        raise UsageError(
            f"data root {root} has no {', '.join(m + '/' for m in missing)}:"
            f" {_hint_for(root, missing)}"
        )
    per_folder = {f: _pt_files(root / f) for f in folders}
    samples = set.intersection(*per_folder.values())
    orphans = sorted(f"{f}/{rel}" for f, rels in per_folder.items() for rel in rels - samples)
    if not samples:
        counts = ", ".join(f"{f}/ {len(per_folder[f])}" for f in folders)
        raise UsageError(
            f"data root {root} has no complete sample (.pt files per folder: {counts}): a sample"
            " needs the same relative .pt in every folder; rerun preprocessing"
        )
    return DataRootInfo(
        path=root,
        folders=folders,
        sample_count=len(samples),
        samples=tuple(sorted(samples)),
        orphans=tuple(orphans),
    )
