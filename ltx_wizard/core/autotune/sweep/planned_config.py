"""The planned config.yaml as autotune reads it: bounded, well-typed, or one clear refusal.

config.yaml is the user's to edit, so autotune meets whatever a hand edit left there: a list
where a path belongs, `batch_size: lots`, `1e999`, aliases, megabytes of text. Each is refused
with the key and what to do, before any trial starts (exit 2), instead of a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ltx_wizard.core.tuning.headroom import ModelSize, TrainSettings, model_size
from ltx_wizard.core.tuning.trial_config import settings_from_config
from ltx_wizard.core.io.bounded import CONFIG_MAX_BYTES, read_text
from ltx_wizard.core.base.errors import UsageError, WizardError
from ltx_wizard.core.io.trainer_config import trainer_config
from ltx_wizard.core.io.yaml_patch import load_yaml

_FIX = "fix it by hand, or run `ltx-wizard plan --force` again"


@dataclass(frozen=True)
class PlannedConfig:
    text: str
    data: Mapping[str, Any]
    settings: TrainSettings


def _refuse(path: Path, key: str, value: object, want: str) -> UsageError:
    shown = repr(value)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return UsageError(f"{path}: {key} is {shown}, expected {want}: {_FIX}")


def read_planned(path: Path) -> PlannedConfig:
    """Read and check RUN_DIR/config.yaml; UsageError (exit 2) names what is wrong."""
    if not path.exists() and not path.is_symlink():
        raise UsageError(f"{path} does not exist: run `ltx-wizard plan` first")
    text = read_text(path, what="config", limit=CONFIG_MAX_BYTES)
    try:
        data = load_yaml(text)
    except WizardError as exc:
        raise UsageError(f"{path}: {exc.message}") from None
    try:
        keys = trainer_config(data, str(path))
    except UsageError as exc:  # a wrong type, named with the key by the view
        raise UsageError(f"{exc.message}: {_FIX}") from None
    # (key, value, lowest, highest): far outside these no real run exists; inside, the trainer decides
    for key, value, low, high in (
        ("optimization.batch_size", keys.optimization.batch_size, 1, 1024),
        ("optimization.gradient_accumulation_steps", keys.optimization.gradient_accumulation_steps, 1, 65536),
        ("lora.rank", keys.lora.rank, 1, 65536),
    ):
        if value is not None and not low <= value <= high:
            raise _refuse(path, key, value, f"a whole number from {low} to {high}")
    try:
        settings = settings_from_config(text)
    except (TypeError, ValueError, OverflowError) as exc:  # a shape the checks above missed
        raise UsageError(f"{path}: a value autotune tunes is not usable ({exc}): {_FIX}") from None
    return PlannedConfig(text=text, data=data, settings=settings)


def planned_model_size(run_dir: Path, checkpoint: str | None, target_modules: object) -> ModelSize | None:
    """The headroom model's sizes: from the checkpoint facts the plan recorded (plan.json), so
    the file is not read again; from its header when the record is missing or names another
    file (config.yaml edited since)."""
    if not checkpoint:
        return None
    targets = target_modules if isinstance(target_modules, list) else None
    try:
        from ltx_wizard.core.plan.record import read_record

        rec = read_record(run_dir)
        if rec is not None and rec.checkpoint is not None and str(rec.checkpoint.path) == str(checkpoint):
            return model_size(rec.checkpoint, targets)
    except Exception:  # a damaged record: the header below still gives the sizes
        pass
    try:
        from ltx_wizard.core.inputs.checkpoint import inspect_checkpoint

        return model_size(inspect_checkpoint(checkpoint), targets)
    except Exception:  # headroom then falls back to the 22B estimate; the trial still decides
        return None
