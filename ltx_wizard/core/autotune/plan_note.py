"""What autotune changed that the plan's reader must know: the effective batch, when it moved.

A batch trial lowers gradient accumulation to keep the plan's effective batch (samples per
optimizer step); when accumulation is already 1 it cannot, and the winner trains on more samples
per step than plan.md says. That is appended to plan.md (written whole, then renamed).
"""

from __future__ import annotations

from pathlib import Path

from ltx_wizard.core.autotune.headroom import TrainSettings
from ltx_wizard.core.workspace import atomic_write_text

HEADING = "## Autotune changed the effective batch"


def effective_batch_note(before: TrainSettings, after: TrainSettings, num_gpus: int) -> str | None:
    gpus = max(1, num_gpus)
    old = before.batch_size * before.gradient_accumulation_steps * gpus
    new = after.batch_size * after.gradient_accumulation_steps * gpus
    if old == new:
        return None
    return (f"{HEADING}\n\nPlanned: batch {before.batch_size} x accumulation "
            f"{before.gradient_accumulation_steps} x {gpus} GPU(s) = {old} samples per optimizer "
            f"step. Autotune's winner: batch {after.batch_size} x accumulation "
            f"{after.gradient_accumulation_steps} x {gpus} = {new}, because gradient accumulation "
            f"cannot go below 1. Each of `optimization.steps` now sees {new / old:g}x the samples: "
            "lower `steps` or the learning rate in config.yaml if you want the planned schedule.\n")


def append_to_plan(plan: Path, note: str | None) -> None:
    if not note or not plan.is_file():
        return
    text = plan.read_text(encoding="utf-8")
    if HEADING in text:  # a resumed autotune: the note is there already
        return
    atomic_write_text(plan, text.rstrip("\n") + "\n\n" + note)
