"""`<run>/accelerate.yaml`, written through accelerate's own config classes when the extra is there.

The trainer's shipped accelerate configs hard-code four processes; a copy with the right count
(built and serialised by accelerate itself, so its schema is always the installed one) makes the
launch line self-describing. accelerate imports torch, so this is the ONLY module that touches it,
lazily, inside a function; without the extra the launch just passes --num_processes.
"""

from __future__ import annotations

import importlib.util
import io
from dataclasses import dataclass
from pathlib import Path

from ruamel.yaml import YAML

SKIPPED_NOTE = (
    "accelerate extra not installed (`.venv/bin/pip install '.[accelerate]'` brings it): no "
    "accelerate.yaml written; the launch passes --num_processes to accelerate directly"
)


@dataclass(frozen=True)
class AccelerateYaml:
    text: str | None  # None when skipped
    note: str | None


def accelerate_available() -> bool:
    try:
        return importlib.util.find_spec("accelerate") is not None
    except (ImportError, ValueError):
        return False


def render_accelerate_yaml(style: str, num_gpus: int, shipped: Path | None) -> AccelerateYaml:
    """The shipped ddp/fsdp config with num_processes = `num_gpus`, or a minimal one if absent."""
    if style not in ("ddp", "fsdp") or num_gpus < 2:
        return AccelerateYaml(None, None)
    if not accelerate_available():
        return AccelerateYaml(None, SKIPPED_NOTE)
    try:
        from accelerate.commands.config.config_args import ClusterConfig  # heavy: torch

        if shipped is not None and shipped.is_file():
            config = ClusterConfig.from_yaml_file(yaml_file=str(shipped))
        else:
            config = ClusterConfig(
                compute_environment="LOCAL_MACHINE",
                distributed_type="FSDP" if style == "fsdp" else "MULTI_GPU",
                mixed_precision="bf16",
                use_cpu=False,
                debug=False,
            )
        config.num_processes = num_gpus
        config.num_machines = 1
        data = config.to_dict()
    except Exception as exc:  # a broken or unexpected accelerate must not stop the plan
        return AccelerateYaml(
            None,
            f"accelerate could not build a config ({type(exc).__name__}: {exc}); "
            "the launch passes --num_processes directly",
        )
    out = io.StringIO()
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.dump(data, out)
    return AccelerateYaml(out.getvalue(), None)
