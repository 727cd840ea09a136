"""Which LoRA the evaluation renders: the final checkpoint by default, any saved one on request.

The trainer saves `<output_dir>/checkpoints/{lora,model}_weights_step_NNNNN.safetensors`
(ltx_trainer/trainer.py LtxvTrainer._save_checkpoint), and always one at the last step. The final
checkpoint is the one of step `optimization.steps`; when it is missing (a stopped run), the
skill's rule holds: no intermediate checkpoint is rendered without the user naming it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.io.run_meta import read_run_meta
from ltx_wizard.core.io.trainer_config import trainer_config

_WEIGHTS = re.compile(r"(lora|model)_weights_step_(\d+)\.safetensors")


@dataclass(frozen=True)
class Saved:
    step: int
    path: Path


def output_dir(run_dir: Path, config: Mapping[str, Any]) -> Path:
    """The trainer's output_dir: relative paths resolve against the trainer's working directory
    (ltx_trainer/config.py LtxTrainerConfig.expand_output_path; launch.sh cds to the recorded
    cwd)."""
    raw = Path(trainer_config(config).output_dir or "outputs").expanduser()
    if raw.is_absolute():
        return raw
    spec = read_run_meta(run_dir).launch
    return (spec.cwd if spec is not None else Path(run_dir)) / raw


def saved(run_dir: Path, config: Mapping[str, Any]) -> list[Saved]:
    """The run's saved weights, newest step first."""
    folder = output_dir(run_dir, config) / "checkpoints"
    found = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    for entry in entries:
        match = _WEIGHTS.fullmatch(entry.name)
        if match and entry.is_file():
            found.append(Saved(int(match.group(2)), Path(entry.path)))
    return sorted(found, key=lambda s: s.step, reverse=True)


def final_step(config: Mapping[str, Any]) -> int | None:
    return trainer_config(config).optimization.steps


@dataclass(frozen=True)
class Choice:
    path: Path
    step: int | None
    final: bool
    note: str  # in words, for the screen and the manifest


def choose(run_dir: Path, config: Mapping[str, Any], wanted: Path | None = None) -> Choice:
    """The checkpoint to render. Raises UsageError (exit 2) for a file that is no checkpoint,
    and when the final one is missing and none was named."""
    if wanted is not None:
        path = Path(wanted).expanduser().absolute()
        if path.suffix != ".safetensors" or not path.is_file():
            raise UsageError(
                f"--checkpoint {wanted}: not a .safetensors file: name one of the run's saved checkpoints"
            )
        match = _WEIGHTS.fullmatch(path.name)
        step = int(match.group(2)) if match else None
        final = step is not None and step == final_step(config)
        return Choice(path, step, final, f"{path.name}" + (f" (step {step})" if step else ""))
    found = saved(run_dir, config)
    last = final_step(config)
    if found and (last is None or found[0].step >= last):
        return Choice(
            found[0].path,
            found[0].step,
            True,
            f"{found[0].path.name} (the final checkpoint, step {found[0].step})",
        )
    if not found:
        raise UsageError(
            f"no saved checkpoint in {output_dir(run_dir, config) / 'checkpoints'}: "
            "the evaluation renders a trained LoRA; train first"
        )
    raise UsageError(
        f"the final checkpoint (step {last}) is missing; the latest saved is step "
        f"{found[0].step} ({found[0].path}): to evaluate it, name it with "
        "--checkpoint FILE"
    )
