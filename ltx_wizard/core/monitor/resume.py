"""Resume a stopped run without losing a checkpoint.

What the trainer does today (ltx_trainer/trainer.py), mirrored here:
- `_load_checkpoint` / `_find_checkpoint`: weights come only from `model.load_checkpoint` (a file,
  or the highest `*step_*.safetensors` under a folder); nothing is picked up from output_dir.
- `_resolve_resume_state` / `_load_training_state`: the step counter, optimizer and scheduler come
  from `training_state_step_<same digits>.pt` beside that file, unless `checkpoints.no_resume`, the
  file is absent or unreadable, or the config fingerprint (optimizer_type, scheduler_type,
  training_mode, lora.rank) differs from the state's; in all those cases training restarts at
  step 0 with the loaded weights.
- `train`: with no steps left (`initial_step >= optimization.steps`) it raises ValueError.
- `_save_checkpoint` / `_save_training_state` write `{lora|model}_weights_step_{step:05d}` and
  `training_state_step_{step:05d}.pt` into `<output_dir>/checkpoints` over whatever is there.
So a restart at step 0 into the same output_dir overwrites the earlier checkpoints of the same
step numbers (LTX-2 #35). The guard: predict the step the trainer will start from and every
checkpoint name it will write; when one exists already, the resumed run gets a fresh output_dir.
The fingerprint is compared against `<output_dir>/training_config.yaml`, which the trainer saves
at every start (`_save_config`); the .pt itself is a torch pickle the wizard does not open.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ltx_wizard.core.io.bounded import read_text
from ltx_wizard.core.base.errors import UsageError, WizardError
from ltx_wizard.core.monitor.run_config import output_dir, read_config, value
from ltx_wizard.core.io.safe_fs import write_text
from ltx_wizard.core.io.yaml_patch import patch_yaml_text, unified_diff

_WEIGHTS = re.compile(r"^(lora|model)_weights_step_(\d+)\.safetensors$")
_FINGERPRINT = ("optimization.optimizer_type", "optimization.scheduler_type",
                "model.training_mode", "lora.rank")


@dataclass(frozen=True)
class SavedCheckpoint:
    path: Path
    step: int
    state: Path | None  # training_state_step_*.pt beside it (non-empty), or None


@dataclass
class ResumePlan:
    checkpoint: SavedCheckpoint
    start_step: int  # where the trainer will count from
    total_steps: int
    weights_only_reason: str | None  # why the step count restarts at 0 (None: full resume)
    changes: dict[str, object] = field(default_factory=dict)
    would_overwrite: list[str] = field(default_factory=list)  # names that forced a new output_dir
    diff: str = ""
    new_text: str = ""

    def sentence(self) -> str:
        ck = self.checkpoint
        if self.weights_only_reason is None:
            text = (f"Resume from step {ck.step} of {self.total_steps}: weights {ck.path.name} and "
                    f"the training state {ck.state.name} beside it (optimizer, scheduler, step).")
        else:
            text = (f"Weights only from {ck.path.name} (step {ck.step}): {self.weights_only_reason}, "
                    f"so the trainer counts steps from 0 again.")
        if self.would_overwrite:
            text += (f" Restarted step numbers would overwrite {', '.join(self.would_overwrite[:3])}"
                     f": the resumed run writes to {self.changes['output_dir']} instead.")
        return text


def saved_checkpoints(out_dir: Path) -> list[SavedCheckpoint]:
    """The weights in `<output_dir>/checkpoints`, latest step first."""
    folder = out_dir / "checkpoints"
    try:
        names = sorted(p.name for p in folder.iterdir())
    except OSError:
        return []
    found = []
    for name in names:
        m = _WEIGHTS.match(name)
        if not m:
            continue
        state = folder / f"training_state_step_{m.group(2)}.pt"
        try:  # trainer.py _load_training_state: an unreadable (here: empty) state means step 0
            has_state = state.is_file() and state.stat().st_size > 0
        except OSError:
            has_state = False
        found.append(SavedCheckpoint(folder / name, int(m.group(2)), state if has_state else None))
    return sorted(found, key=lambda c: c.step, reverse=True)


def _fingerprint_mismatch(config: dict, out_dir: Path) -> list[str]:
    try:
        saved = read_config(out_dir / "training_config.yaml")
    except WizardError:
        return []
    if not saved:
        return []
    diffs = []
    for key in _FINGERPRINT:
        before, now = value(saved, key), value(config, key)
        if before is not None and now is not None and before != now:
            diffs.append(f"{key}: {before} → {now}")
    return diffs


def _weights_only_reason(config: dict, ck: SavedCheckpoint, out_dir: Path) -> str | None:
    if value(config, "checkpoints.no_resume", False):
        return "checkpoints.no_resume is true"
    if ck.state is None:
        return f"no training_state_step_{ck.step:05d}.pt beside it"
    mismatch = _fingerprint_mismatch(config, out_dir)
    if mismatch:
        return "the config differs from the saved state (" + "; ".join(mismatch) + ")"
    return None


def planned_names(config: dict, start: int, total: int) -> list[str]:
    """Every checkpoint file the trainer will write from `start` to `total` (train() saves at
    each checkpoints.interval and once more at the end)."""
    interval = int(value(config, "checkpoints.interval", 0) or 0)
    prefix = "lora" if value(config, "model.training_mode", "lora") == "lora" else "model"
    steps = {total} | ({s for s in range(start + 1, total + 1) if s % interval == 0}
                       if interval > 0 else set())
    names = []
    for step in sorted(steps):
        names += [f"{prefix}_weights_step_{step:05d}.safetensors",
                  f"training_state_step_{step:05d}.pt"]
    return names


def _fresh_output_dir(out_dir: Path, step: int) -> Path:
    for n in range(1, 1000):
        candidate = out_dir.with_name(f"{out_dir.name}-resumed-from-{step}" + (f"-{n}" if n > 1 else ""))
        if not candidate.exists():
            return candidate
    raise UsageError(f"no free folder name beside {out_dir} for the resumed run")


def plan_resume(run_dir: Path) -> ResumePlan:
    """What resuming would change in config.yaml. Raises UsageError when it cannot resume."""
    config_path = Path(run_dir) / "config.yaml"
    text = read_text(config_path, what="config")
    config = read_config(config_path)
    out_dir = output_dir(Path(run_dir), config)
    found = saved_checkpoints(out_dir)
    if not found:
        raise UsageError(f"no checkpoint in {out_dir / 'checkpoints'} to resume from")
    ck = found[0]
    total = int(value(config, "optimization.steps", 0) or 0)
    reason = _weights_only_reason(config, ck, out_dir)
    start = 0 if reason else ck.step
    if start >= total:  # trainer.py train(): "No remaining training steps" (ValueError)
        raise UsageError(f"the run already reached step {ck.step} of {total}: raise "
                         "optimization.steps in config.yaml to train longer")
    plan = ResumePlan(ck, start, total, reason, {"model.load_checkpoint": str(ck.path)})
    existing = {p.name for p in (out_dir / "checkpoints").glob("*")} if out_dir.is_dir() else set()
    plan.would_overwrite = [n for n in planned_names(config, start, total) if n in existing]
    if plan.would_overwrite:
        plan.changes["output_dir"] = str(_fresh_output_dir(out_dir, ck.step))
    plan.new_text = patch_yaml_text(text, plan.changes)
    plan.diff = unified_diff(text, plan.new_text, "config.yaml", "config.yaml (resume)")
    return plan


def apply_resume(run_dir: Path, plan: ResumePlan) -> Path:
    """Write the patched config.yaml (temp file, then rename); the old one is kept beside it."""
    config_path = Path(run_dir) / "config.yaml"
    current = read_text(config_path, what="config")
    if patch_yaml_text(current, plan.changes) != plan.new_text:
        raise UsageError("config.yaml changed since the resume was planned: look again")
    write_text(Path(run_dir) / "config.before-resume.yaml", current, root=Path(run_dir))
    return write_text(config_path, plan.new_text, root=Path(run_dir))
