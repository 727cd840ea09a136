"""Read `<run>/run.json`, the facts `plan` recorded for later commands (absent in old folders).

Frozen records, read and written through the run folder's codec (core/io/run_codec.py: msgspec,
strict, unknown fields refused, a few ms to import where pydantic cost `plan` about 0.1 s). A file
written before it carried a version reads as version 1; the text is otherwise what the pydantic
models wrote. Hand-edited lax values ("2" for 2, "yes" for true) are no longer accepted.
"""

from __future__ import annotations

import uuid
from dataclasses import field
from pathlib import Path
from typing import Annotated, Any

from msgspec import Meta

from ltx_wizard.core.base.records import plain, record
from ltx_wizard.core.io import run_folder
from ltx_wizard.core.io.run_codec import declare

MAX_COUNT = 65536  # GPUs on a node, nodes in a job: far above any real one
# A GPU or node count a machine can have (a hand-edited -3 or 10**100 would reach the preprocess
# batch and autotune's GPU slots); a run id as new_run_id makes it
Count = Annotated[int, Meta(ge=1, le=MAX_COUNT)]
RunId = Annotated[str, Meta(pattern=r"\A[0-9a-f]{32}\Z")]


@record
class LaunchSpec:
    """How the full training run starts: what `<run>/launch.sh` runs (cwd, env, argv) and where
    its output and pid go. Built once by the plan (core/launch/script.py); read back from run.json
    by the Done screen, the background start and `ensure_script`, never from plan.md."""

    argv: list[str]
    cwd: Path
    env: dict[str, str] = field(default_factory=dict)
    simulated: bool = False  # the simulated trainer (--simulate/--demo), not the real one
    log: Path | None = None  # None in run.json written before these were recorded
    pid_file: Path | None = None

    def to_json(self) -> dict[str, Any]:
        """The JSON form, key order as written (pydantic's model_dump(mode="json"))."""
        doc: dict[str, Any] = plain(self)
        return doc


@record
class RunMeta:
    # Which run this folder is, and where the plan put it: launch.sh and slurm.sbatch run only
    # in the folder whose run.json names their id, at that place (config.yaml's paths name it).
    run_id: RunId | None = None  # 32 lower-case hex digits (new_run_id)
    run_dir: Path | None = None
    trainer_root: Path | None = None
    tier: str | None = None
    num_gpus: Count | None = None  # one node's: autotune stays single-node
    nodes: Count = 1
    accepted_risk: bool = False
    recipe: str | None = None  # the shipped config's stem (core/inputs/recipes.py)
    base_config: Path | None = None  # the shipped file config.yaml was made from (plan.md's diff)
    launch: LaunchSpec | None = None

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = plain(self)
        return doc

    def json_text(self) -> str:
        """run.json's text: its version, then what pydantic's model_dump_json(indent=2) wrote."""
        return RUN_META_FILE.encode(self)


RUN_META_FILE = declare(run_folder.RUN_META, RunMeta)


def read_run_meta(run_dir: Path) -> RunMeta:
    """What run.json says; an absent or refused file (damaged, unknown fields, another version)
    reads as 'nothing recorded', as before, and the commands that need it say so."""
    return RUN_META_FILE.quietly(run_dir) or RunMeta()


def new_run_id() -> str:
    """A fresh run's id: run.json, launch.sh and slurm.sbatch carry the same one."""
    return uuid.uuid4().hex
