"""The preprocessed data root (data.preprocessed_data_root): which samples the trainer will see.

The folders come from the config's `training_strategy` (sources.required_folders). The
trainer enumerates the `.pt` files of one folder and keeps a sample only when every other folder
holds its file; there is no index file. Files that no sample uses are skipped silently by the
trainer, so they are reported here. Video-only data under a config that trains audio gets its own
error, which names the video-only choice.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, Mapping

from ltx_wizard.core.base.records import record
from ltx_wizard.core.dataset.sources import (
    SHIPPED_T2V_STRATEGY,
    audio_folder,
    expected_file,
    primary_folder,
    required_folders,
    video_only,
    video_only_change,
)
from ltx_wizard.core.base.errors import UsageError, WizardError
from ltx_wizard.core.inputs.model_paths import require_directory, resolve_user_path

# mirrors ltx-trainer scripts/process_dataset.py (its flags, and output_dir defaulting to
# .precomputed beside the dataset file): the command that makes a data root.
PREPROCESS_HINT = (
    "run the trainer's preprocessing first (in packages/ltx-trainer: uv run python "
    "scripts/process_dataset.py dataset.json --resolution-buckets 960x544x49 --model-path CKPT "
    "--text-encoder-path GEMMA), then pass the .precomputed folder it writes beside dataset.json"
)
VIDEO_ONLY_FLAG = "--video-only"


class VideoOnlyData(UsageError):
    """Video-only data under a config that trains audio: fixable by the video-only choice."""

    def __init__(self, message: str, folder: str) -> None:
        super().__init__(message)
        self.folder = folder


@record
class DataRootInfo:
    path: Path
    folders: tuple[str, ...]  # the strategy's folders, in the trainer's order
    primary: str  # the folder whose files enumerate the samples
    sample_count: int
    samples: tuple[str, ...]  # the primary folder's relative .pt paths that have every file, sorted
    orphans: tuple[str, ...]  # "folder/relative.pt" no usable sample uses: the trainer skips them
    lacking: tuple[tuple[str, int], ...] = ()  # (folder, primary files with no file there)

    def files(self, sample: str) -> list[tuple[str, str]]:
        """(folder, relative path) of every file the trainer loads for `sample`."""
        return [(f, sample if f == self.primary else expected_file(f, sample)) for f in self.folders]

    def describe(self) -> str:
        text = (
            f"{self.sample_count} sample{'s' if self.sample_count != 1 else ''} in {', '.join(self.folders)}"
        )
        for folder, count in self.lacking:
            text += f"; {count} {self.primary}/ file(s) have no {folder}/ file and are skipped by the trainer"
        if self.orphans:
            text += f"; {len(self.orphans)} orphan file(s) skipped by the trainer (e.g. {self.orphans[0]})"
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
        if seen > WALK_MAX_ENTRIES:  # the bound by work: the same answer at any load
            raise UsageError(
                f"{folder} holds too much to be a preprocessed data folder (stopped after "
                f"{seen} entries): pass the folder the preprocessing script wrote"
            )
        if time.monotonic() > deadline:  # the clock only guards a disk or a box that cannot
            raise WizardError(
                f"listing {folder} took over {max_s:.0f} s ({seen} entries so far): the box is "
                "too busy or the disk too slow; retry when it is quieter"
            )
        for name in files:
            if name.endswith(".pt"):
                found.add(name if rel_dir == "." else f"{rel_dir}/{name}".replace(os.sep, "/"))
    return found


def _hint_for(path: Path, missing: list[str], folders: tuple[str, ...]) -> str:
    for child in (".precomputed", "precomputed"):
        if all((path / child / m).is_dir() for m in missing):
            return f"did you mean {path / child}?"
    if path.name in folders:
        return f"pass its parent {path.parent}"
    return PREPROCESS_HINT


def video_only_message(root: Path, why: str, change: tuple[str, object], option: str) -> str:
    key, value = change
    shown = "null" if value is None else str(value).lower()
    return (
        f"data root {root} {why}, but the config trains audio too: this is video-only data."
        f" Train video only with {option} (writes {key}: {shown} into config.yaml), or"
        " preprocess the clips with their audio"
    )


def inspect_data_root(
    path: str | os.PathLike[str],
    *,
    strategy: Mapping[str, Any] | None = SHIPPED_T2V_STRATEGY,
    cwd: str | os.PathLike[str] | None = None,
    option: str = VIDEO_ONLY_FLAG,
) -> DataRootInfo:
    """Scan `path` as the trainer would under `strategy` (a config's `training_strategy` block;
    None: the block is absent). `option` names the video-only choice in the error message."""
    root = resolve_user_path(path, what="data root", cwd=cwd)
    require_directory(root, what="data root")
    folders = tuple(required_folders(strategy))
    audio = audio_folder(strategy)
    change = video_only_change(strategy)
    # mirrors ltx_trainer/config.py LtxTrainerConfig._validate_data_dirs_exist (no .precomputed here)
    missing = [f for f in folders if not (root / f).is_dir()]
    if audio is not None and missing == [audio] and change is not None and _has_video(root, strategy):
        raise VideoOnlyData(video_only_message(root, f"has no {audio}/", change, option), audio)
    if missing:
        raise UsageError(
            f"data root {root} has no {', '.join(m + '/' for m in missing)}:"
            f" {_hint_for(root, missing, folders)}"
        )
    per_folder = pt_files_by_folder(root, folders)
    if audio is not None and change is not None and not per_folder[audio] and _has_video(root, strategy):
        why = f"has no .pt file in {audio}/"
        raise VideoOnlyData(video_only_message(root, why, change, option), audio)
    primary = primary_folder(required_folders(strategy))
    samples, lacking, used = match_samples(per_folder, primary)
    orphans = sorted(f"{f}/{rel}" for f, rels in per_folder.items() for rel in rels - used[f])
    if not samples:
        counts = ", ".join(f"{f}/ {len(per_folder[f])}" for f in folders)
        raise UsageError(
            f"data root {root} has no complete sample (.pt files per folder: {counts}): a sample"
            f" needs its .pt in every folder the config reads ({', '.join(folders)}); rerun"
            " scripts/process_dataset.py (add --overwrite when reusing its output folder)"
        )
    return DataRootInfo(
        path=root,
        folders=folders,
        primary=primary,
        sample_count=len(samples),
        samples=tuple(samples),
        orphans=tuple(orphans),
        lacking=tuple((f, n) for f, n in lacking.items() if n),
    )


def pt_files_by_folder(root: Path, folders: tuple[str, ...] | list[str]) -> dict[str, set[str]]:
    """Relative .pt paths under each folder (a missing folder holds none)."""
    return {f: _pt_files(root / f) for f in folders}


def match_samples(
    per_folder: Mapping[str, set[str]], primary: str
) -> tuple[list[str], dict[str, int], dict[str, set[str]]]:
    """(usable samples, primary files lacking a file per folder, files each folder gives them)."""
    samples: list[str] = []
    lacking = {f: 0 for f in per_folder if f != primary}
    used: dict[str, set[str]] = {f: set() for f in per_folder}
    # mirrors ltx_trainer/datasets.py PrecomputedDataset._discover_samples
    for rel in sorted(per_folder[primary]):
        gaps = [f for f in lacking if expected_file(f, rel) not in per_folder[f]]
        for f in gaps:
            lacking[f] += 1
        if not gaps:
            samples.append(rel)
            for f in per_folder:
                used[f].add(rel if f == primary else expected_file(f, rel))
    return samples, lacking, used


def _has_video(root: Path, strategy: Mapping[str, Any] | None) -> bool:
    """Every folder the video-only strategy reads is there with files: the data is video-only."""
    if strategy is None:
        return False
    return all(any((root / f).glob("**/*.pt")) for f in required_folders(video_only(strategy)))
