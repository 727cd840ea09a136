"""The Monitor's "Apply fix": the diagnosis's proposed change as a config.yaml patch, and what
else a change means for the run's checkpoints.

A fix that changes the LoRA's shape (lora.rank) or the training mode makes the earlier
checkpoints unloadable: the trainer's `_load_checkpoint` loads the weights into a LoRA of the new
rank (peft's set_peft_model_state_dict: a size mismatch raises). So such a fix also clears
`model.load_checkpoint` and, when the output folder holds checkpoints, moves `output_dir` to a
fresh folder: the next start counts from step 0 and would write the same file names over them.
The old config.yaml is kept under a numbered backup name (backups.py), never overwritten.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ltx_wizard.core.io.run_folder import CONFIG
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.io.bounded import read_text
from ltx_wizard.core.io.safe_fs import write_text
from ltx_wizard.core.io.yaml_patch import load_yaml, patch_yaml_text, unified_diff
from ltx_wizard.core.monitor.backups import keep_copy
from ltx_wizard.core.monitor.resume import fresh_output_dir
from ltx_wizard.core.monitor.run_config import config_view, output_dir
from ltx_wizard.core.monitor.saved_checkpoints import saved_checkpoints

SHAPE_KEYS = ("lora.rank", "model.training_mode")


@dataclass
class FixPlan:
    changes: dict[str, object]
    before: str
    after: str
    diff: str
    notes: list[str] = field(default_factory=list)  # what else the change means, said first


def plan_fix(run_dir: Path, changes: dict[str, object]) -> FixPlan:
    """config.yaml with `changes` (and what a shape change needs). Raises WizardError."""
    run_dir = Path(run_dir)
    before = read_text(CONFIG.path(run_dir), what="config")
    config = load_yaml(before)
    changes = dict(changes)
    notes = []
    if any(key in changes for key in SHAPE_KEYS):
        keys = config_view(config).keys
        old = keys.lora.rank
        notes.append(
            f"A LoRA of rank {changes.get('lora.rank', old)} cannot load the checkpoints "
            f"trained at rank {old}: training starts again from step 0."
        )
        if keys.model.load_checkpoint:
            changes["model.load_checkpoint"] = None
        out_dir = output_dir(run_dir, config)
        if saved_checkpoints(out_dir):
            fresh = fresh_output_dir(out_dir, f"rank-{changes.get('lora.rank', old)}")
            changes["output_dir"] = str(fresh)
            notes.append(f"The earlier checkpoints stay in {out_dir}: the new run writes to {fresh}.")
    after = patch_yaml_text(before, changes)
    return FixPlan(
        changes, before, after, unified_diff(before, after, CONFIG.name, f"{CONFIG.name} (fixed)"), notes
    )


def apply_fix(run_dir: Path, plan: FixPlan) -> Path:
    """Write the patched config.yaml after keeping the old one; returns the backup's path."""
    run_dir = Path(run_dir)
    if read_text(CONFIG.path(run_dir), what="config") != plan.before:
        raise UsageError("config.yaml changed meanwhile: look again (f)")
    backup = keep_copy(run_dir, "config.before-fix", plan.before)
    write_text(CONFIG.path(run_dir), plan.after, root=run_dir)
    return backup
