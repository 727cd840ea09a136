"""Read `<run>/run.json`, the facts `plan` recorded for later commands (absent in old folders)."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ValidationError

from ltx_wizard.core.bounded_io import JSON_MAX_BYTES, loads_json, read_bytes
from ltx_wizard.core.errors import UsageError


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
    try:  # bounded, regular file only, depth-limited: a planted FIFO or bomb is "nothing"
        doc = loads_json(read_bytes(run_dir / "run.json", what="run.json", limit=JSON_MAX_BYTES),
                         what="run.json")
        return RunMeta.model_validate(doc)
    except (UsageError, ValueError, ValidationError):
        return RunMeta()
