"""Read `<run>/run.json`, the facts `plan` recorded for later commands (absent in old folders)."""

from __future__ import annotations

import uuid
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from ltx_wizard.core.io.bounded import JSON_MAX_BYTES, loads_json, read_bytes
from ltx_wizard.core.base.errors import UsageError


class LaunchSpec(BaseModel):
    """How the full training run starts: what `<run>/launch.sh` runs (cwd, env, argv) and where
    its output and pid go. Built once by the plan (core/launch/script.py); read back from run.json
    by the Done screen, the background start and `ensure_script`, never from plan.md."""

    argv: list[str]
    cwd: Path
    env: dict[str, str] = {}
    simulated: bool = False  # the simulated trainer (--simulate/--demo), not the real one
    log: Path | None = None  # None in run.json written before these were recorded
    pid_file: Path | None = None


class RunMeta(BaseModel):
    # Which run this folder is, and where the plan put it: launch.sh and slurm.sbatch run only
    # in the folder whose run.json names their id, at that place (config.yaml's paths name it).
    run_id: str | None = Field(None, pattern=r"^[0-9a-f]{32}$")
    run_dir: Path | None = None
    trainer_root: Path | None = None
    tier: str | None = None
    num_gpus: int | None = None  # one node's: autotune stays single-node
    nodes: int = 1
    accepted_risk: bool = False
    recipe: str | None = None  # the shipped config's stem (core/inputs/recipes.py)
    base_config: Path | None = None  # the shipped file config.yaml was made from (plan.md's diff)
    launch: LaunchSpec | None = None


def read_run_meta(run_dir: Path) -> RunMeta:
    """What run.json says; an absent or damaged file reads as 'nothing recorded'."""
    try:  # bounded, regular file only, depth-limited: a planted FIFO or bomb is "nothing"
        doc = loads_json(read_bytes(run_dir / "run.json", what="run.json", limit=JSON_MAX_BYTES),
                         what="run.json")
        return RunMeta.model_validate(doc)
    except (UsageError, ValueError, ValidationError):
        return RunMeta()


def new_run_id() -> str:
    """A fresh run's id: run.json, launch.sh and slurm.sbatch carry the same one."""
    return uuid.uuid4().hex
