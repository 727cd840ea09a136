"""The two data types of planning: what the user asked (`PlanRequest`) and everything
`prepare_plan` computed from it (`PlanDraft`), before anything is written.

Kept apart from run_plan.py so its steps (steps.py) and the writer (writer.py) can name them
without importing the module that drives them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from ltx_wizard.core.base.records import record
from ltx_wizard.core.gpu.tiers import Tier
from ltx_wizard.core.inputs.checkpoint import CheckpointInfo
from ltx_wizard.core.inputs.recipes import DEFAULT_RECIPE
from ltx_wizard.core.io.run_meta import LaunchSpec, RunMeta, new_run_id
from ltx_wizard.core.io.workspace import RunFolder
from ltx_wizard.core.launch.command import LaunchPlan
from ltx_wizard.core.launch.multinode import MultiNodePlan
from ltx_wizard.core.launch.script import sbatch_spec, spec_of, stand_in_spec
from ltx_wizard.core.plan.memory_section import HostCheck


@record
class PlanRequest:
    trainer_root: Path | None = None
    checkpoint: Path
    text_encoder: Path
    data_root: Path
    video_vae: Path | None = None
    audio_vae: Path | None = None
    workspace: Path | None = None
    run_name: str | None = None
    training_mode: Literal["lora", "full"] = "lora"
    effective_batch: int | None = None
    accept_risk: bool = False
    force: bool = False
    force_full: bool = False
    video_only: bool = False  # train without audio: training_strategy.audio: null
    recipe: str = DEFAULT_RECIPE  # a shipped config's stem (core/inputs/recipes.py list_recipes)
    nodes: int = 1  # machines like this one (Slurm); the probe gives one node's GPUs
    slurm_time: str | None = None
    slurm_partition: str | None = None
    slurm_cpus: int | None = None
    # core/validation/plan.py: the user's files for the recipe's validation samples, their
    # prompts, and the validation asked for (None: media when given, else prompts only)
    validation_media: tuple[Path, ...] = ()
    validation_prompts: tuple[str, ...] = ()
    validation: Literal["media", "prompts-only", "off"] | None = None
    # when data_root is a dataset file (core/preprocess/planning.py): the preprocessing's choices
    resolution_buckets: str | None = None
    lora_trigger: str | None = None
    precomputed_dir: Path | None = None


@dataclass(frozen=True)
class PlanDraft:
    run_dir: Path
    run_name: str
    tier: Tier
    base_config: str  # the shipped file's name, e.g. t2v_lora_low_vram.yaml or i2v_lora.yaml
    base_path: Path
    base_text: str
    config_text: str
    changes: dict[str, object]
    plan_text: str
    diff: str
    launch: LaunchPlan
    accelerate_text: str | None
    warnings: tuple[str, ...]
    sample_count: int
    trainer_dir: Path  # where the trainer's own schema check runs
    uv_path: str | None
    accepted_risk: bool = False  # the minimum gate was overridden
    recipe: str = DEFAULT_RECIPE
    recipe_modes: str = ""  # what the recipe trains, e.g. "video generated (first_frame) + ..."
    applied: tuple[str, ...] = ()  # "`key: value` (from t2v_lora_low_vram.yaml)" lines
    host: HostCheck | None = None  # host RAM and disk for this run (host_limits.py)
    memory_lines: tuple[str, ...] = ()  # GPU floor + host RAM + disk, as plan.md shows them
    multinode: MultiNodePlan | None = None  # set when more than one node is planned
    slurm_text: str | None = None  # <run>/slurm.sbatch
    simulate: str | None = None  # the GPUs are a named machine's, not this one's
    stand_in: Any = None  # base/stand_in.py StandIn: what launch.sh runs in place of the trainer
    checkpoint: CheckpointInfo | None = None  # as `inspect` read it: later steps need not again
    run_id: str = field(default_factory=new_run_id)  # run.json's, launch.sh's, slurm.sbatch's
    preprocess_text: str | None = None  # <run>/preprocess.json for a plan from a dataset file

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
