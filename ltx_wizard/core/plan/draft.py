"""What `prepare_plan` computed (`PlanDraft`), before anything is written: the plan's record
(plan.json), plan.md rendered from it, and what the writer and the screens need besides.

The user's inputs are a `PlanRequest` (plan_request.py), imported here for the callers that name both.
Kept apart from run_plan.py so its steps (plan_steps.py) and the writer (writer.py) can name them
without importing the module that drives them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from ltx_wizard.core.gpu.tiers import Tier
from ltx_wizard.core.inputs.checkpoint import CheckpointInfo
from ltx_wizard.core.io.run_meta import LaunchSpec, RunMeta, new_run_id
from ltx_wizard.core.io.workspace import RunFolder
from ltx_wizard.core.launch.launch_command import LaunchPlan
from ltx_wizard.core.launch.multinode import MultiNodePlan
from ltx_wizard.core.launch.script import sbatch_spec, spec_of, stand_in_spec
from ltx_wizard.core.plan.memory_section import HostCheck
from ltx_wizard.core.plan.record import PlanRecord
from ltx_wizard.core.plan.plan_request import PlanRequest  # noqa: F401  (callers import it here)


@dataclass(frozen=True)
class PlanDraft:
    record: PlanRecord  # what plan decided, as data: <run>/plan.json
    plan_text: str  # plan.md, rendered from the record (plan_md.py)
    diff: str
    changes: dict[str, object]
    launch: LaunchPlan
    accelerate_text: str | None
    warnings: tuple[str, ...]
    trainer_dir: Path  # where the trainer's own schema check runs
    uv_path: str | None
    accepted_risk: bool = False  # the minimum gate was overridden
    host: HostCheck | None = None  # host RAM and disk for this run (host_limits.py)
    memory_lines: tuple[str, ...] = ()  # GPU floor + host RAM + disk, as plan.md shows them
    multinode: MultiNodePlan | None = None  # set when more than one node is planned
    slurm_text: str | None = None  # <run>/slurm.sbatch
    stand_in: Any = None  # base/stand_in.py StandIn: what launch.sh runs in place of the trainer
    run_id: str = field(default_factory=new_run_id)  # run.json's, launch.sh's, slurm.sbatch's
    preprocess_text: str | None = None  # <run>/preprocess.json for a plan from a dataset file

    # What the record holds, under the names the screens and commands read.
    @property
    def run_dir(self) -> Path:
        return self.record.run_dir

    @property
    def run_name(self) -> str:
        return self.record.run_name

    @property
    def tier(self) -> Tier:
        return Tier(self.record.tier)

    @property
    def base_config(self) -> str:
        return self.record.base_config

    @property
    def base_path(self) -> Path:
        return self.record.base_path

    @property
    def base_text(self) -> str:
        return self.record.base_text

    @property
    def config_text(self) -> str:
        return self.record.config_text

    @property
    def recipe(self) -> str:
        return self.record.recipe

    @property
    def recipe_modes(self) -> str:
        return self.record.recipe_modes

    @property
    def applied(self) -> tuple[str, ...]:
        return self.record.applied

    @property
    def sample_count(self) -> int:
        return self.record.data.samples

    @property
    def simulate(self) -> str | None:
        return self.record.simulate

    @property
    def checkpoint(self) -> CheckpointInfo | None:
        return self.record.checkpoint

    @cached_property
    def start(self) -> LaunchSpec:
        """What launch.sh runs: the stand-in given for simulated GPUs, `sbatch` for several
        nodes, else the planned command."""
        if self.stand_in is not None:
            return stand_in_spec(self.run_dir, self.stand_in)
        if self.multinode is not None:
            return sbatch_spec(self.run_dir, self.multinode.sbatch_path)
        return spec_of(self.launch, self.run_dir)

    def run_meta(self) -> str:
        """run.json: what later commands (autotune, the TUI) need and cannot read off config.yaml."""
        meta = RunMeta(
            run_id=self.run_id,
            run_dir=self.run_dir.resolve(),
            trainer_root=self.trainer_dir.parents[1],
            tier=self.tier.value,
            num_gpus=self.launch.num_processes,
            nodes=self.multinode.nodes if self.multinode is not None else 1,
            accepted_risk=self.accepted_risk,
            recipe=self.recipe,
            base_config=self.base_path,
            launch=self.start,
        )
        return meta.json_text()

    def shell_line(self) -> str:
        """What the user runs to train: `sbatch` for several nodes, else the launch line."""
        return self.multinode.submit_line() if self.multinode is not None else self.launch.shell_line()

    @property
    def folder(self) -> RunFolder:
        return RunFolder(self.run_dir)
