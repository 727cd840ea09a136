"""What a checkpoint's training state holds, said in plan.md, and `save_training_state: full`
when asked (plan --full-training-state).

mirrors ltx_trainer/trainer.py LtxvTrainer._save_training_state and config.py CheckpointsConfig:
"minimal" (the shipped default) saves the scheduler, the RNG and the step; "full" adds the
optimizer's state (~800 MB for a LoRA, by the config's own description); under FSDP the trainer
saves "minimal" whatever the config says. A resume from a minimal state restarts the optimizer
(AdamW's moments from zero), so its first steps are not those an unbroken run would take.
"""

from __future__ import annotations

from typing import Any, Mapping

from ltx_wizard.core.io.trainer_config import trainer_config

KEY = "checkpoints.save_training_state"
FLAG = "--full-training-state"


def training_state(base: Mapping[str, Any], full: bool, style: str) -> tuple[dict[str, object], str]:
    """(the config change, plan.md's sentence) for the training state each checkpoint keeps."""
    shipped = trainer_config(base).checkpoints.save_training_state or "minimal"
    if full and style == "fsdp":
        return {}, (
            f"Training state: `{shipped}`. {FLAG} was asked, but under FSDP the trainer "
            "saves only the scheduler, RNG and step (trainer.py _save_training_state), "
            "so it was not set; a resume restarts the optimizer."
        )
    if full:
        return {KEY: "full"}, (
            "Training state: `full` (" + FLAG + "): each checkpoint keeps the "
            "optimizer with the scheduler, RNG and step (about 800 MB more per "
            "checkpoint for a LoRA), so a resume continues exactly."
        )
    if shipped == "off":
        return {}, "Training state: `off` (as shipped): a checkpoint cannot be resumed from."
    return {}, (
        f"Training state: `{shipped}` (as shipped): each checkpoint keeps the scheduler, "
        "RNG and step but not the optimizer, so a resume restarts AdamW's moments; "
        f"{FLAG} keeps the optimizer too (about 800 MB per checkpoint for a LoRA)."
    )
