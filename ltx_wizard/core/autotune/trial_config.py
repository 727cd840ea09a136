"""A trial's config: the current best config plus one change, shortened to a 50-step overfit run.

Written with the same byte-preserving patcher as config.yaml, so a trial config differs from the
planned one only on the lines that make it a trial.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from ltx_wizard.core.autotune.headroom import TrainSettings
from ltx_wizard.core.yaml_patch import get_dotted, load_yaml, patch_yaml_text

TRIAL_STEPS = 50


def trial_overrides(subset_root: Path, output_dir: Path) -> dict[str, object]:
    """The keys that make any config a trial; they never reach config.yaml."""
    return {
        "data.preprocessed_data_root": str(subset_root),
        "optimization.steps": TRIAL_STEPS,
        "validation.interval": TRIAL_STEPS,
        "validation.skip_initial_validation": True,
        "checkpoints.interval": None,
        "wandb.enabled": False,
        "hub.push_to_hub": False,
        "output_dir": str(output_dir),
    }


def trial_config_text(
    planned_text: str, changes: Mapping[str, object], subset_root: Path, output_dir: Path
) -> str:
    return patch_yaml_text(planned_text, {**changes, **trial_overrides(subset_root, output_dir)})


def settings_from_config(text: str) -> TrainSettings:
    """The autotune levers as the planned config sets them."""
    data = load_yaml(text)

    def value(path: str, default):
        found = get_dotted(data, path, default)
        return default if found is None and default is not None else found

    return TrainSettings(
        quantization=get_dotted(data, "acceleration.quantization", None),
        optimizer_type=str(value("optimization.optimizer_type", "adamw")),
        batch_size=int(value("optimization.batch_size", 1)),
        gradient_accumulation_steps=int(value("optimization.gradient_accumulation_steps", 1)),
        gradient_checkpointing=bool(value("optimization.enable_gradient_checkpointing", True)),
        training_mode=str(value("model.training_mode", "lora")),
        lora_rank=int(value("lora.rank", 16) or 16),
    )
