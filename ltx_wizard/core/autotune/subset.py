"""The trial data: a few samples of the user's data root, linked file by file, never copied.

The trainer enumerates samples by globbing `**/*.pt` and keeps those present in every required
folder, so a k-sample subset is a new root holding symlinks to the files of k usable samples (the
one data rule of core/dataset.py under the config's `training_strategy`: only samples with a file
in every folder the strategy reads, e.g. partial audio data gives only its clips with audio). Linking folders would expose every sample;
copying latents would cost disk and time. The data root itself is only read.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Mapping

from ltx_wizard.core.data_sources import SHIPPED_T2V_STRATEGY
from ltx_wizard.core.dataset import inspect_data_root

BATCH_SIZES = (4, 2, 1)


def subset_size(available: int, num_gpus: int) -> int:
    """k = what the largest batch trial needs on every GPU, when the data has that many; else 1."""
    for batch in BATCH_SIZES:
        if batch * num_gpus <= available:
            return batch * num_gpus
    return min(available, 1)


def build_subset(
    data_root: Path,
    target: Path,
    num_gpus: int = 1,
    *,
    strategy: Mapping[str, Any] | None = SHIPPED_T2V_STRATEGY,
) -> int:
    """(Re)build `target` as a k-sample linked copy of `data_root`; returns k.

    `strategy` is the trial config's `training_strategy` block: it names the folders linked.
    """
    info = inspect_data_root(data_root, strategy=strategy)
    k = subset_size(info.sample_count, num_gpus)
    chosen = info.samples[:k]
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".precomputed-", dir=target.parent))
    try:
        for sample in chosen:
            for folder, rel in info.files(sample):
                link = staging / folder / rel
                link.parent.mkdir(parents=True, exist_ok=True)
                os.symlink(info.path / folder / rel, link)
        if target.exists() or target.is_symlink():
            # Only ever our own earlier subset: a tree of links inside the run folder.
            shutil.rmtree(target)
        os.replace(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return len(chosen)
