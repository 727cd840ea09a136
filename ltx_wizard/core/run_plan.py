"""Inputs -> a written run folder, in two steps: `prepare_plan` (everything computed, nothing
written; the TUI shows it for approval) and `write_plan` (core/plan_writer.py: atomic, locked,
refuses overwrite).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import Literal, Mapping

from pydantic import BaseModel, ConfigDict

from ltx_wizard.core import config_gen
from ltx_wizard.core import plan_steps as steps
from ltx_wizard.core.assessment import Assessment
from ltx_wizard.core.checkpoint import CheckpointInfo
from ltx_wizard.core.launch import LaunchPlan
from ltx_wizard.core.launch_script import sbatch_spec, simulated_spec, spec_of
from ltx_wizard.core.multinode import MultiNodePlan, plan_section
from ltx_wizard.core.plan_md import PlanContent, render_plan, video_only_note
from ltx_wizard.core.plan_memory import HostCheck, HostSource
from ltx_wizard.core.plan_steps import gate_stop_message  # noqa: F401  (commands import it here)
from ltx_wizard.core.plan_writer import write_plan  # noqa: F401  (callers import it from here)
from ltx_wizard.core.recipes import DEFAULT_RECIPE
from ltx_wizard.core.run_meta import LaunchSpec, RunMeta, new_run_id
from ltx_wizard.core.tiers import Tier, nominal_gb
from ltx_wizard.core.workspace import RunFolder, dataset_name
from ltx_wizard.core.yaml_patch import get_dotted, load_yaml


class PlanRequest(BaseModel):
    model_config = ConfigDict(frozen=True)

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
    recipe: str = DEFAULT_RECIPE  # a shipped config's stem (core/recipes.py list_recipes)
    nodes: int = 1  # machines like this one (Slurm); the probe gives one node's GPUs
    slurm_time: str | None = None
    slurm_partition: str | None = None
    slurm_cpus: int | None = None
    # core/validation_plan.py: the user's files for the recipe's validation samples, their
    # prompts, and the validation asked for (None: media when given, else prompts only)
    validation_media: tuple[Path, ...] = ()
    validation_prompts: tuple[str, ...] = ()
    validation: Literal["media", "prompts-only", "off"] | None = None
    # when data_root is a dataset file (core/dataset_plan.py): the preprocessing's choices
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
    simulate: str | None = None  # GPUs are simulated: launch.sh runs the simulated trainer
    checkpoint: CheckpointInfo | None = None  # as `inspect` read it: later steps need not again
    run_id: str = field(default_factory=new_run_id)  # run.json's, launch.sh's, slurm.sbatch's
    preprocess_text: str | None = None  # <run>/preprocess.json for a plan from a dataset file

    @cached_property
    def start(self) -> LaunchSpec:
        """What launch.sh runs: the simulated trainer on simulated GPUs, `sbatch` for several
        nodes, else the planned command."""
        if self.simulate:
            return simulated_spec(self.run_dir, self.simulate)
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
        return meta.model_dump_json(indent=2) + "\n"

    def shell_line(self) -> str:
        """What the user runs to train: `sbatch` for several nodes, else the launch line."""
        return self.multinode.submit_line() if self.multinode is not None else self.launch.shell_line()

    @property
    def folder(self) -> RunFolder:
        return RunFolder(self.run_dir)


def prepare_plan(
    request: PlanRequest,
    assessment: Assessment,
    *,
    now: datetime | None = None,
    env: Mapping[str, str] | None = None,
    host: HostSource = None,
    simulate: str | None = None,
) -> PlanDraft:
    """Validate every input and compute the run folder's contents; writes nothing. The named
    steps (core/plan_steps.py) each hand on what they found: gate -> inspect -> workspace ->
    config -> launch -> render.
    `host`: RAM/disk readings or a function of the run folder (default: /proc and statvfs)."""
    env = os.environ if env is None else env
    notes = steps.Notes()
    gpus = steps.gate(request, assessment, notes)
    found = steps.inspect(request, assessment, env, notes)
    folder = steps.workspace(request, found, env, now, notes)
    configured = steps.configure(request, assessment, gpus, found, folder, notes, host)
    launched = steps.launch(request, assessment, gpus, found, folder, configured, notes)
    return _render(request, assessment, gpus, found, folder, configured, launched, notes, simulate)


def _render(request: PlanRequest, assessment: Assessment, gpus: steps.Gpus,
            found: steps.Inspected, folder: RunFolder, configured: steps.Configured,
            launched: steps.Launched, notes: steps.Notes, simulate: str | None) -> PlanDraft:
    """plan.md and the draft the TUI shows for approval."""
    # Against the shipped file, so the low-VRAM keys applied to a recipe show in the diff too.
    diff = config_gen.config_diff(found.start.shipped_text, configured.config_text,
                                  f"{found.base_path}", f"{folder.config}")
    content = _plan_content(request, assessment, gpus, found, folder, configured, launched,
                            notes, diff)
    return PlanDraft(
        run_dir=folder.root,
        run_name=folder.root.name,
        tier=assessment.tier,
        base_config=found.base_name,
        base_path=found.base_path,
        base_text=found.start.shipped_text,
        config_text=configured.config_text,
        changes=dict(configured.changes.changes),
        plan_text=render_plan(content),
        diff=diff,
        launch=launched.launch,
        accelerate_text=launched.accelerate.text,
        warnings=tuple(notes.risks + notes.warnings),
        sample_count=found.data.sample_count,
        trainer_dir=found.checkout.trainer_dir,
        uv_path=found.checkout.uv_path,
        accepted_risk=bool(assessment.gate_blocked and request.accept_risk),
        recipe=found.start.recipe.name,
        recipe_modes=found.start.recipe.modes,
        applied=configured.about.applied,
        host=configured.memory.host,
        memory_lines=configured.memory.lines,
        multinode=launched.multinode,
        slurm_text=launched.slurm_text,
        simulate=simulate,
        checkpoint=found.checkpoint,
        run_id=launched.run_id,
        preprocess_text=_preprocess_text(found, simulate),
    )


def _preprocess_text(found: steps.Inspected, simulate: str | None) -> str | None:
    if found.dataset is None:
        return None
    from ltx_wizard.core.preprocess_state import PreprocessState

    plan = found.dataset
    state = PreprocessState(dataset_file=plan.report.dataset, data_root=plan.data_root,
                            spec=plan.spec, trainer_dir=found.checkout.trainer_dir,
                            simulate=bool(simulate), samples=plan.report.kept,
                            silent=plan.report.silent_samples,
                            reused=plan.reused)
    return state.model_dump_json(indent=2) + "\n"


def _plan_content(request: PlanRequest, assessment: Assessment, gpus: steps.Gpus,
                  found: steps.Inspected, folder: RunFolder, configured: steps.Configured,
                  launched: steps.Launched, notes: steps.Notes, diff: str) -> PlanContent:
    multi, launch, data = launched.multinode, launched.launch, found.data
    config = load_yaml(configured.config_text)
    return PlanContent(
        run_name=folder.root.name,
        run_dir=str(folder.root),
        training_mode=request.training_mode,
        dataset_path=str(data.path),
        dataset_name=dataset_name(data.path),
        sample_count=data.sample_count,
        config=config,
        base_config=found.base_name,
        effective_batch=configured.batch.achieved,
        num_gpus=gpus.total,
        nodes=gpus.nodes,
        gpu_lines=tuple(_gpu_line(g) for g in assessment.probe.gpus),
        tier=assessment.tier,
        per_gpu_vram_gb=assessment.per_gpu_vram_gb,
        launch_line=multi.submit_line() if multi else launch.shell_line(),
        launch_style=multi.style if multi else launch.style,
        multinode_lines=tuple(plan_section(
            multi, checkpoint_every=get_dotted(config, "checkpoints.interval", None),
        )) if multi else (),
        assumptions=tuple(notes.assumptions),
        risks=tuple(notes.risks),
        warnings=tuple(notes.warnings),
        diff=diff,
        host_lines=configured.memory.lines,
        dataset_note=f"Each sample is a file in every folder the config reads: "
        f"{', '.join(f + '/' for f in data.folders)}.",
        video_only_note=video_only_note(found.video_change, found.base_name, config),
        mode=found.start.recipe.run_mode,
        recipe=found.start.recipe.name,
        recipe_modes=found.start.recipe.modes,
        applied=configured.about.applied,
        skipped=configured.about.skipped,
    )


def _gpu_line(gpu) -> str:
    size = "memory unknown" if gpu.memory_total_bytes is None else f"{nominal_gb(gpu.memory_total_bytes)} GB"
    return f"{gpu.index}: {gpu.name} ({size})"
