"""Resume a stopped (or finished, with more steps) run without losing a checkpoint or a sample.

What the trainer does today (ltx_trainer/trainer.py), mirrored here:
- `_load_checkpoint` / `_find_checkpoint`: weights come only from `model.load_checkpoint` (a file,
  or the highest `*step_*.safetensors` under a folder); nothing is picked up from output_dir.
- `_resolve_resume_state` / `_load_training_state`: the step counter (and what else the state
  holds: saved_checkpoints.py) come from `training_state_step_<same digits>.pt` beside that file,
  unless `checkpoints.no_resume`, the file is absent or unreadable, or the config fingerprint
  (optimizer_type, scheduler_type, training_mode, lora.rank) differs from the state's; in all
  those cases training restarts at step 0 with the loaded weights.
- `train`: with no steps left (`initial_step >= optimization.steps`) it raises ValueError. It
  validates first at the start step (unless `validation.skip_initial_validation`), then at every
  `validation.interval`, writing `samples/step_{step:06d}_{n}.{ext}` over what is there; it saves
  at every `checkpoints.interval` and once more at the end, over whatever is there.
So a restart at step 0 into the same output_dir overwrites the earlier checkpoints of the same
step numbers (LTX-2 #35), and any resume rewrites the earlier run's samples of the steps it
validates. The guard: every existing checkpoint file the resumed run would write again sends it
to a fresh output_dir; every existing sample it would write again is moved aside first. Both are
decided per existing file, by arithmetic: the planned step count can be anything.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ltx_wizard.core.io.run_folder import CONFIG
from ltx_wizard.core.io.trainer_config import TrainerConfig
from ltx_wizard.core.base.errors import UsageError, WizardError
from ltx_wizard.core.base.text_safety import clip
from ltx_wizard.core.io.bounded import read_text
from ltx_wizard.core.io.safe_fs import os_failure, write_text
from ltx_wizard.core.io.yaml_patch import load_yaml, patch_yaml_text, unified_diff
from ltx_wizard.core.monitor.backups import keep_copy, new_folder
from ltx_wizard.core.monitor.run_config import config_view, output_dir
from ltx_wizard.core.monitor.saved_checkpoints import (
    STATE,
    WEIGHTS,
    SavedCheckpoint,
    checkpoint_names,
    restores,
    saved_checkpoints,
)

__all__ = ["ResumePlan", "SavedCheckpoint", "apply_resume", "plan_resume", "saved_checkpoints", "writes_step"]

_FINGERPRINT: tuple[tuple[str, Callable[[TrainerConfig], object]], ...] = (
    ("optimization.optimizer_type", lambda k: k.optimization.optimizer_type),
    ("optimization.scheduler_type", lambda k: k.optimization.scheduler_type),
    ("model.training_mode", lambda k: k.model.training_mode),
    ("lora.rank", lambda k: k.lora.rank),
)
_SAMPLE = re.compile(r"step_(\d{1,40})_\d{1,12}\.\w{1,8}")  # validation_runner.py ValidationRunner.run
MAX_SAMPLES = 10_000  # sample names looked at
ASIDE = "kept-before-resume"


@dataclass
class ResumePlan:
    checkpoint: SavedCheckpoint
    start_step: int  # where the trainer will count from
    total_steps: int
    weights_only_reason: str | None  # why the step count restarts at 0 (None: full resume)
    restores: str = ""  # what the training state gives back (training_state.restores)
    changes: dict[str, object] = field(default_factory=dict)
    would_overwrite: list[str] = field(default_factory=list)  # names that forced a new output_dir
    samples_aside: list[Path] = field(default_factory=list)  # moved before the resumed launch
    diff: str = ""
    new_text: str = ""

    def sentence(self) -> str:
        ck = self.checkpoint
        if self.weights_only_reason is None:
            assert ck.state is not None  # a full resume has its training state (_weights_only_reason)
            text = (
                f"Resume from step {ck.step} of {self.total_steps}: weights {ck.path.name} and "
                f"the training state {ck.state.name} beside it. {self.restores}"
            )
        else:
            text = (
                f"Weights only from {ck.path.name} (step {ck.step}): {self.weights_only_reason}, "
                f"so the trainer counts steps from 0 again."
            )
        if self.would_overwrite:
            text += (
                f" Restarted step numbers would overwrite {', '.join(self.would_overwrite[:3])}"
                f": the resumed run writes to {self.changes['output_dir']} instead."
            )
        if self.samples_aside:
            count = len(self.samples_aside)
            text += (
                f" The trainer validates again at step {self.start_step} first, writing over "
                f"the earlier run's {'sample' if count == 1 else f'{count} samples'} of that "
                f"step ({self.samples_aside[0].name}{', ...' if count > 1 else ''}): "
                f"{'it is' if count == 1 else 'they are'} moved to samples/{ASIDE}/ first."
            )
        return text


def _fingerprint_mismatch(config: dict[str, Any], out_dir: Path) -> list[str]:
    from ltx_wizard.core.monitor.run_config import read_config

    saved = read_config(out_dir / "training_config.yaml")
    diffs: list[str] = []
    if not saved:
        return diffs
    then, keys = config_view(saved).keys, config_view(config).keys
    for key, read in _FINGERPRINT:
        before, now = read(then), read(keys)
        if before is not None and now is not None and before != now:
            diffs.append(f"{key}: {before} → {now}")
    return diffs


def _weights_only_reason(config: dict[str, Any], ck: SavedCheckpoint, out_dir: Path) -> str | None:
    keys = config_view(config).keys
    if keys.checkpoints.no_resume is True:
        return "checkpoints.no_resume is true"
    if ck.state is None:
        return f"no training_state_step_{ck.step:05d}.pt beside it"
    mismatch = _fingerprint_mismatch(config, out_dir)
    rank = [m for m in mismatch if m.startswith("lora.rank")]
    if rank and (keys.model.training_mode or "lora") == "lora":
        # trainer.py _load_checkpoint: the weights go into a LoRA of the configured rank (peft's
        # set_peft_model_state_dict): another rank's tensors do not fit and the start fails
        raise UsageError(
            f"config.yaml changed {rank[0]} since the checkpoints were saved: the "
            "trainer cannot load them into a LoRA of another rank: put the rank "
            "back to resume, or set a new output_dir and start anew (bash launch.sh)"
        )
    if mismatch:
        return "the config differs from the saved state (" + "; ".join(mismatch) + ")"
    return None


def writes_step(step: int, start: int, total: int, interval: int | None) -> bool:
    """Whether a run counting from `start` to `total` saves a checkpoint at `step` (train():
    every `interval` steps, and once more at the end)."""
    return start < step <= total and (
        step == total or interval is not None and interval != 0 and step % interval == 0
    )


def validates_step(step: int, start: int, total: int, config: dict[str, Any]) -> bool:
    """Whether that run writes validation samples of `step` (train(): first at `start` unless
    skip_initial_validation, then every validation.interval steps)."""
    validation = config_view(config).keys.validation
    interval = validation.interval
    if not interval or interval <= 0:
        return False
    if step == start:
        return validation.skip_initial_validation is not True
    return start < step <= total and step % interval == 0


def _clashes(config: dict[str, Any], out_dir: Path, start: int, total: int) -> list[str]:
    interval = config_view(config).keys.checkpoints.interval
    names = []
    for name in checkpoint_names(out_dir / "checkpoints"):
        m = WEIGHTS.fullmatch(name) or STATE.fullmatch(name)
        if m and writes_step(int(m.groups()[-1]), start, total, interval):
            names.append(name)
    return sorted(names)


def _samples_written_over(config: dict[str, Any], out_dir: Path, start: int, total: int) -> list[Path]:
    folder = out_dir / "samples"
    found = []
    for name in checkpoint_names(folder)[:MAX_SAMPLES]:
        m = _SAMPLE.fullmatch(name)
        if m and validates_step(int(m.group(1)), start, total, config):
            found.append(folder / name)
    return sorted(found)


def fresh_output_dir(out_dir: Path, tag: str) -> Path:
    """`<output_dir>-<tag>` (then -2, -3, ...): a name nothing exists under in any form (a
    file, a folder, a link, a dangling link: the trainer would write where a link points)."""
    for n in range(1, 1000):
        candidate = out_dir.with_name(f"{out_dir.name}-{tag}" + (f"-{n}" if n > 1 else ""))
        if not os.path.lexists(candidate):
            return candidate
    raise UsageError(f"no free folder name beside {out_dir} for the resumed run")


def _pick(found: list[SavedCheckpoint], upto_step: int | None, out_dir: Path) -> SavedCheckpoint:
    usable = [c for c in found if upto_step is None or c.step <= upto_step]
    if not found:
        raise UsageError(f"no checkpoint in {out_dir / 'checkpoints'} to resume from")
    if not usable:
        raise UsageError(
            f"every checkpoint in {out_dir / 'checkpoints'} was saved after the loss "
            f"turned NaN (after step {upto_step}): none to resume from; start anew"
        )
    return usable[0]


def plan_resume(run_dir: Path, *, upto_step: int | None = None) -> ResumePlan:
    """What resuming from the latest checkpoint (at or before `upto_step`: the last one saved
    while the loss was finite) would change. Raises UsageError when it cannot resume."""
    run_dir = Path(run_dir)
    text = read_text(CONFIG.path(run_dir), what="config")
    try:
        config = load_yaml(text)
    except WizardError as exc:
        raise UsageError(f"config.yaml cannot be read: {exc.message}") from None
    except (ValueError, RecursionError) as exc:  # ruamel's int() of a 5,000-digit number
        raise UsageError(f"config.yaml cannot be read ({clip(str(exc), 80)}): fix it") from None
    if not isinstance(config, dict):
        raise UsageError("config.yaml is not a mapping of settings: fix it, then resume")
    out_dir = output_dir(run_dir, config)
    ck = _pick(saved_checkpoints(out_dir), upto_step, out_dir)
    view = config_view(config)
    view.require("optimization.steps", "checkpoints.interval", "validation.interval")
    steps = view.keys.optimization.steps
    total = 3000 if steps is None else steps  # config.py OptimizationConfig default
    reason = _weights_only_reason(config, ck, out_dir)
    start = 0 if reason else ck.step
    if start >= total:  # trainer.py train(): "No remaining training steps" (ValueError)
        raise UsageError(
            f"the run already reached step {ck.step} of {total}: raise "
            "optimization.steps in config.yaml to train longer, then resume again"
        )
    plan = ResumePlan(
        ck, start, total, reason, restores(run_dir, config, out_dir), {"model.load_checkpoint": str(ck.path)}
    )
    plan.would_overwrite = _clashes(config, out_dir, start, total)
    if plan.would_overwrite:
        plan.changes["output_dir"] = str(fresh_output_dir(out_dir, f"resumed-from-{ck.step}"))
    else:
        plan.samples_aside = _samples_written_over(config, out_dir, start, total)
    plan.new_text = patch_yaml_text(text, plan.changes)
    plan.diff = unified_diff(text, plan.new_text, CONFIG.name, f"{CONFIG.name} (resume)")
    return plan


def _move_aside(samples: list[Path]) -> Path | None:
    if not samples:
        return None
    folder = new_folder(samples[0].parent, ASIDE)
    for path in samples:
        try:
            os.rename(path, folder / path.name)  # a new, empty folder: nothing is replaced
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise os_failure(folder / path.name, exc) from None
    return folder


def apply_resume(run_dir: Path, plan: ResumePlan) -> tuple[Path, Path | None]:
    """Keep config.yaml under a new numbered backup name, move the samples the resumed run would
    write over aside, write the patched config.yaml (temp file, then rename). Returns (the
    backup, the folder the samples went to or None)."""
    run_dir = Path(run_dir)
    config_path = CONFIG.path(run_dir)
    current = read_text(config_path, what="config")
    if patch_yaml_text(current, plan.changes) != plan.new_text:
        raise UsageError("config.yaml changed since the resume was planned: look again")
    fresh = plan.changes.get("output_dir")
    if fresh is not None and os.path.lexists(str(fresh)):
        raise UsageError(f"{fresh} exists now (the resumed run's output folder): look again")
    backup = keep_copy(run_dir, "config.before-resume", current)
    aside = _move_aside(plan.samples_aside)
    write_text(config_path, plan.new_text, root=run_dir)
    return backup, aside
