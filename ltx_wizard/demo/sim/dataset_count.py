"""The simulated trainer's dataset discovery: how many samples its DataLoader gets.

Takes the preprocessed data root and the training strategy explicitly; logs and dies through the
trainer's output like the real trainer does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ltx_wizard.core.dataset.data_root import match_samples, pt_files_by_folder
from ltx_wizard.core.dataset.sources import primary_folder, required_folders
from ltx_wizard.demo.sim import frames
from ltx_wizard.demo.sim.rich_format import traceback_lines
from ltx_wizard.demo.sim.console import TrainerOutput


def count_samples(data_root: str, training_strategy: Any, output: TrainerOutput) -> int:
    # mirrors ltx_trainer/datasets.py PrecomputedDataset: the folders the strategy names
    # (the config check already found them), a .precomputed child preferred, the samples
    # those of the primary folder with a file in every other folder.
    root = Path(data_root)
    if (root / ".precomputed").exists():
        root = root / ".precomputed"
    sources = required_folders(training_strategy)
    for folder in sources:
        if not (root / folder).exists():
            output.traceback(
                traceback_lines(
                    frames.MISSING_FOLDER,
                    f"FileNotFoundError: Required {folder} directory does not exist: {root / folder}",
                    Path.cwd(),
                )
            )
    primary = primary_folder(sources)
    per_folder = pt_files_by_folder(root, list(sources))
    if not per_folder[primary]:
        output.traceback(
            traceback_lines(
                frames.NO_FILES, f"ValueError: No data files found in {root / primary}", Path.cwd()
            )
        )
    samples, _lacking, _used = match_samples(per_folder, primary)
    skipped = len(per_folder[primary]) - len(samples)
    if skipped:  # datasets.py PrecomputedDataset._discover_samples, before _validate_setup
        output.log(
            f"Skipped {skipped} invalid samples from {len(per_folder[primary])} total", 220, "datasets.py"
        )
    if not samples:
        counts = {key: 0 for key in sources.values()}  # per output key, as the trainer counts
        output.traceback(
            traceback_lines(
                frames.NO_SAMPLES,
                f"ValueError: No valid samples found in {root} - all "
                f"configured data sources ({list(sources)}) must have matching files (per-source "
                f"counts: {counts})",
                Path.cwd(),
            )
        )
    output.log(  # trainer.py LtxvTrainer._init_dataloader: the strategy's folders, DEBUG
        f"Loaded dataset with {len(samples):,} samples from sources: {list(sources)}", 682, level="DEBUG"
    )
    return len(samples)
