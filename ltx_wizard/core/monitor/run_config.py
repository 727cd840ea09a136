"""The few facts of a run's config.yaml the monitor needs, read through the typed view of the
trainer's keys (core/io/trainer_config.py). Bounded, and tolerant of a hostile file: a bad file
reads empty, and a key whose value the view cannot take (the wrong type) reads as unset, that is
unknown, never an error; the refused values are kept aside, so that resume can name what to fix."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from ltx_wizard.core.base.errors import UsageError, WizardError
from ltx_wizard.core.base.text_safety import clip
from ltx_wizard.core.io.bounded import read_text
from ltx_wizard.core.io.run_folder import CONFIG
from ltx_wizard.core.io.run_meta import read_run_meta
from ltx_wizard.core.io.trainer_config import SECTIONS, TrainerConfig, trainer_config
from ltx_wizard.core.io.yaml_patch import load_yaml


def read_config(path: Path) -> dict[str, Any]:
    """config.yaml as plain data; {} when absent or unreadable."""
    try:
        doc = load_yaml(read_text(path, what="config"))
    except (WizardError, ValueError, RecursionError):  # a 5,000-digit number: ruamel's int()
        return {}
    return dict(doc) if isinstance(doc, dict) else {}


@dataclass(frozen=True)
class ConfigView:
    keys: TrainerConfig
    refused: Mapping[str, Any] = field(default_factory=dict)  # dotted key -> its value as written

    def require(self, *dotted: str) -> None:
        """UsageError naming the first of `dotted` (or its section) whose value was refused: for a
        plan that cannot go on without it (resume)."""
        for key in dotted:
            for name in (key, key.split(".")[0]):
                if name in self.refused:
                    shown = clip(repr(self.refused[name]), 40)
                    raise UsageError(
                        f"{CONFIG.name}: {name} is {shown}, not a value the trainer accepts: "
                        f"fix it in {CONFIG.name}"
                    )


def config_view(config: Mapping[str, Any]) -> ConfigView:
    """The typed view of `config`; where a value has the wrong type, the view of everything else,
    that key read as unset and kept in `refused`."""
    whole = _view(config)
    if whole is not None:
        return ConfigView(whole)
    kept: dict[str, Any] = {}
    refused: dict[str, Any] = {}
    for key, raw in config.items():
        if key in SECTIONS and isinstance(raw, Mapping):
            kept[key] = {}
            for sub, item in raw.items():
                if _view({key: {sub: item}}) is None:
                    refused[f"{key}.{sub}"] = item
                else:
                    kept[key][sub] = item
        elif _view({key: raw}) is None:
            refused[str(key)] = raw
        else:
            kept[key] = raw
    return ConfigView(_view(kept) or TrainerConfig(), refused)


def _view(config: Mapping[str, Any]) -> TrainerConfig | None:
    try:
        return trainer_config(config)
    except (UsageError, RecursionError, ValueError, TypeError):
        return None


def output_dir(run_dir: Path, config: Mapping[str, Any]) -> Path:
    """Where the trainer writes checkpoints and samples. ltx_trainer/config.py
    LtxTrainerConfig.expand_output_path resolves it against the trainer's working directory
    (launch.sh cds to the recorded cwd); the default is `outputs`."""
    raw = Path(config_view(config).keys.output_dir or "outputs").expanduser()
    if raw.is_absolute():
        return raw
    spec = read_run_meta(run_dir).launch
    return (spec.cwd if spec is not None else run_dir) / raw
