"""Read `<run>/run.json`, the facts `plan` recorded for later commands (absent in old folders)."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ValidationError


class LaunchSpec(BaseModel):
    """How the full training run starts: what `<run>/launch.sh` runs (cwd, env, argv)."""

    argv: list[str]
    cwd: Path
    env: dict[str, str] = {}
    simulated: bool = False  # the simulated trainer (--simulate/--demo), not the real one


class RunMeta(BaseModel):
    trainer_root: Path | None = None
    tier: str | None = None
    num_gpus: int | None = None
    accepted_risk: bool = False
    launch: LaunchSpec | None = None


def read_run_meta(run_dir: Path) -> RunMeta:
    """What run.json says; an absent or damaged file reads as 'nothing recorded'."""
    try:
        return RunMeta.model_validate(json.loads((run_dir / "run.json").read_text(encoding="utf-8")))
    except (OSError, ValueError, ValidationError):
        return RunMeta()
