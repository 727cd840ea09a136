"""The trial data: a few samples of the user's data root, linked file by file, never copied.

The trainer enumerates samples by globbing `**/*.pt` and keeps those present in every required
folder, so a k-sample subset is a new root holding symlinks to those k files (in every folder of
the original root that has them, same relative paths). Linking folders would expose every sample;
copying latents would cost disk and time. The data root itself is only read.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from ltx_wizard.core.dataset import inspect_data_root

BATCH_SIZES = (4, 2, 1)


def subset_size(available: int, num_gpus: int) -> int:
    """k = what the largest batch trial needs on every GPU, when the data has that many; else 1."""
    for batch in BATCH_SIZES:
        if batch * num_gpus <= available:
            return batch * num_gpus
    return min(available, 1)


def build_subset(data_root: Path, target: Path, num_gpus: int = 1, *, with_audio: bool = False) -> int:
    """(Re)build `target` as a k-sample linked copy of `data_root`; returns k."""
    info = inspect_data_root(data_root, with_audio=with_audio)
    k = subset_size(info.sample_count, num_gpus)
    chosen = info.samples[:k]
    folders = sorted(
        entry.name for entry in os.scandir(info.path) if entry.is_dir(follow_symlinks=True)
    )
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".precomputed-", dir=target.parent))
    try:
        for folder in folders:
            for rel in chosen:
                source = info.path / folder / rel
                if not source.is_file():
                    continue
                link = staging / folder / rel
                link.parent.mkdir(parents=True, exist_ok=True)
                os.symlink(source, link)
        if target.exists() or target.is_symlink():
            # Only ever our own earlier subset: a tree of links inside the run folder.
            shutil.rmtree(target)
        os.replace(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return len(chosen)
