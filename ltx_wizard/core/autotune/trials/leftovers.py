"""Delete what a recorded trial no longer needs: its checkpoints (a full fine-tune's are ~44 GB);
set aside what a dropped guess left, so the trial that takes its number has files of its own.

A trial measures step time and memory; its weights and training state are never used again. The
trial's config, validation samples and the trainer's saved training_config.yaml stay (small, and
the proof of what ran). Only the trial's own folder inside the run folder is touched, and links are
removed as links, never followed: a checkpoints folder linked to a disk elsewhere loses nothing.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

# mirrors ltx_trainer/trainer.py LtxvTrainer._save_checkpoint: weights and
# training_state_step_N.pt under <output_dir>/checkpoints/ (written at the end even with interval null)
PRUNED = ("checkpoints",)


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return True


def prune_trial_outputs(output_dir: Path, run_root: Path) -> list[Path]:
    """Remove PRUNED entries of `output_dir`; returns what was removed. Refuses anything that is
    not a real folder inside the real run folder (a linked trial folder is left alone)."""
    root = Path(os.path.realpath(run_root))
    folder = Path(os.path.abspath(output_dir))
    if folder.is_symlink() or not folder.is_dir() or Path(os.path.realpath(folder)) != folder:
        return []  # the folder (or a parent) is a link: its contents may live outside the run
    if not _inside(folder, root) or folder == root:
        return []
    removed = []
    for name in PRUNED:
        target = folder / name
        if target.is_symlink() or target.is_file():
            target.unlink()  # the link goes, never what it points to
        elif target.is_dir():
            # rmtree never follows links inside the tree (it unlinks them; fd-based on Linux)
            shutil.rmtree(target)
        else:
            continue
        removed.append(target)
    return removed


def guess_name(index: int, attempt: int = 1) -> str:
    """`trial-3.guess`, then `trial-3.guess-2`: where a dropped guess of trial 3 is set aside."""
    return f"trial-{index}.guess" + (f"-{attempt}" if attempt > 1 else "")


def _taken(*paths: Path) -> bool:
    return any(p.is_symlink() or p.exists() for p in paths)


def set_aside_guess(overfit: Path, logs: Path, index: int, run_root: Path) -> str | None:
    """Move a dropped guess's trial-N/ and logs/trial-N.log to the first free guess name (its
    checkpoints pruned); the name, or None when the guess left nothing (it never started).
    A link is moved as a link, never followed; only the checkpoints are deleted."""
    folder, log = overfit / f"trial-{index}", logs / f"trial-{index}.log"
    present = [p for p in (folder, log) if _taken(p)]
    if not present:
        return None
    attempt = 1
    while _taken(overfit / guess_name(index, attempt), logs / f"{guess_name(index, attempt)}.log"):
        attempt += 1  # an earlier guess of the same number (or an earlier session's) stays
    name = guess_name(index, attempt)
    if folder in present:
        os.rename(folder, overfit / name)
        prune_trial_outputs(overfit / name, run_root)
    if log in present:
        os.rename(log, logs / f"{name}.log")
    return name
