"""The checkpoints a run saved, and what the training state beside one gives back on resume.

What the trainer saves (ltx_trainer/trainer.py, mirrored here):
- `_save_checkpoint` writes `{lora|model}_weights_step_{step:05d}.safetensors` into
  `<output_dir>/checkpoints`, then `_save_training_state` writes `training_state_step_{step:05d}.pt`
  by `checkpoints.save_training_state` (config.py, default "minimal"): "full" holds the optimizer
  state, the scheduler state, the RNG state and the step; "minimal" the same without the
  optimizer; "off" nothing. Under FSDP "full" is saved as "minimal" (a warning says so).
- `_restore_training_state`: the optimizer state is loaded when the file has one, the scheduler
  state when there is a scheduler (scheduler_type "constant" has none), the RNG state only in a
  single-process run ("Skipping RNG restore in multi-process mode").
The .pt is a torch pickle the wizard does not open: the mode is read from the config the trainer
saved at its last start (`_save_config`: `<output_dir>/training_config.yaml`), else config.yaml.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ltx_wizard.core.gpu.tiers import launch_style
from ltx_wizard.core.io.run_meta import read_run_meta
from ltx_wizard.core.monitor.run_config import config_view, read_config

# fullmatch: a name ending in a newline (or anything else) is no checkpoint of the trainer's
WEIGHTS = re.compile(r"(lora|model)_weights_step_(\d{1,40})\.safetensors")
STATE = re.compile(r"training_state_step_(\d{1,40})\.pt")
MAX_ENTRIES = 100_000  # names looked at in a checkpoints folder
# torch.optim.lr_scheduler: these compute the next rate from the optimizer's current one (the
# "chainable" form); CosineAnnealingWarmRestarts computes it from the base rates and its counter.
_CHAINABLE = {
    "linear": "LinearLR",
    "cosine": "CosineAnnealingLR",
    "polynomial": "PolynomialLR",
    "step": "StepLR",
}


@dataclass(frozen=True)
class SavedCheckpoint:
    path: Path
    step: int
    state: Path | None  # training_state_step_*.pt beside it (non-empty), or None


def checkpoint_names(folder: Path) -> list[str]:
    """The entry names of a checkpoints folder (at most MAX_ENTRIES); [] when unreadable."""
    names = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                names.append(entry.name)
                if len(names) >= MAX_ENTRIES:
                    break
    except OSError:
        return []
    return names


def saved_checkpoints(out_dir: Path) -> list[SavedCheckpoint]:
    """The weights in `<output_dir>/checkpoints`, latest step first."""
    folder = out_dir / "checkpoints"
    found = []
    for name in checkpoint_names(folder):
        m = WEIGHTS.fullmatch(name)
        if not m:
            continue
        state = folder / f"training_state_step_{m.group(2)}.pt"
        try:  # trainer.py _load_training_state: an unreadable (here: empty) state means step 0
            has_state = state.is_file() and state.stat().st_size > 0
        except OSError:
            has_state = False
        found.append(SavedCheckpoint(folder / name, int(m.group(2)), state if has_state else None))
    return sorted(found, key=lambda c: (c.step, c.path.name), reverse=True)


def kept_on_stop(out_dir: Path, *, stopped: bool = False) -> str:
    """What a stop keeps, read from the checkpoints folder at the moment it is asked (the Stop
    dialog, then again once stopped): the latest weights there, or none."""
    found = saved_checkpoints(out_dir)
    if not found:
        if stopped:
            return "No checkpoint was saved, so every step trained is lost."
        return "No checkpoint was saved yet, so every step trained so far is lost."
    latest = found[0]
    if stopped:
        return f"The latest checkpoint is step {latest.step}'s ({latest.path.name})."
    return f"The checkpoint of step {latest.step} stays; the steps since then are lost."


def saved_mode(config: dict[str, Any], out_dir: Path) -> str:
    saved = read_config(out_dir / "training_config.yaml")
    mode = config_view(saved).keys.checkpoints.save_training_state if saved else None
    mode = mode or config_view(config).keys.checkpoints.save_training_state or "minimal"
    return mode if mode in ("full", "minimal", "off") else "minimal"


def _processes(run_dir: Path) -> int:
    meta = read_run_meta(run_dir)
    return max(1, (meta.num_gpus or 1) * max(1, meta.nodes or 1))


def restores(run_dir: Path, config: dict[str, Any], out_dir: Path) -> str:
    """What a resume from a training state of this run gives back, in one sentence."""
    processes = _processes(Path(run_dir))
    mode_key = saved_mode(config, out_dir)
    keys = config_view(config).keys
    fsdp = launch_style(processes, keys.model.training_mode or "lora") == "fsdp"
    scheduler = keys.optimization.scheduler_type or "linear"
    kept = ["the step count"]
    if scheduler not in ("constant", "None"):
        kept.append("the learning-rate scheduler's position")
    if processes == 1:
        kept.append("the random state")
    if mode_key == "full" and not fsdp:
        return "It restores " + ", ".join(kept) + " and the optimizer state (AdamW's moments)."
    kept_text = ", ".join(kept[:-1]) + " and " + kept[-1] if len(kept) > 1 else kept[0]
    why = (
        "FSDP saves it so whatever the setting" if fsdp else f"checkpoints.save_training_state is {mode_key}"
    )
    text = f"It restores {kept_text}; not the optimizer state ({why}): AdamW's moments start again from zero"
    if scheduler in _CHAINABLE:
        text += (
            f", and the learning rate starts again from optimization.learning_rate, which "
            f"{_CHAINABLE[scheduler]} continues from, so it leaves the schedule"
        )
    hint = "" if fsdp else " `checkpoints.save_training_state: full` keeps it in later checkpoints."
    return text + "." + hint
