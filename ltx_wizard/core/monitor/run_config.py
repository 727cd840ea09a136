"""The few facts of a run's config.yaml the monitor needs (read bounded; a bad file reads empty)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ltx_wizard.core.io.bounded import read_text
from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.io.run_meta import read_run_meta
from ltx_wizard.core.io.yaml_patch import get_dotted, load_yaml


def read_config(path: Path) -> dict:
    """config.yaml as plain data; {} when absent or unreadable."""
    try:
        return dict(load_yaml(read_text(path, what="config")))
    except WizardError:
        return {}


def value(config: dict, dotted: str, default: Any = None) -> Any:
    found = get_dotted(config, dotted, default)
    return default if found is None else found


def output_dir(run_dir: Path, config: dict) -> Path:
    """Where the trainer writes checkpoints and samples. ltx_trainer/config.py
    LtxTrainerConfig.expand_output_path resolves it against the trainer's working directory
    (launch.sh cds to the recorded cwd); the default is `outputs`."""
    raw = Path(str(value(config, "output_dir", "outputs"))).expanduser()
    if raw.is_absolute():
        return raw
    spec = read_run_meta(run_dir).launch
    return (spec.cwd if spec is not None else run_dir) / raw
