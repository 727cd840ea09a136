"""Inputs -> a written run folder, in two steps: `prepare_plan` (everything computed, nothing
written; the TUI shows it for approval) and `write_plan` (core/plan/writer.py: atomic, locked,
refuses overwrite).
"""

from __future__ import annotations

import dataclasses
import os
from datetime import datetime
from pathlib import Path
from typing import Any, Mapping

from ltx_wizard.core.plan import config_gen
from ltx_wizard.core.plan import config_step
from ltx_wizard.core.plan import plan_steps as steps
from ltx_wizard.core.plan.draft import PlanDraft, PlanRequest
from ltx_wizard.core.base.stand_in import StandIn
from ltx_wizard.core.gpu.assessment import Assessment
from ltx_wizard.core.gpu.devices import GpuInfo
from ltx_wizard.core.launch.multinode import plan_section
from ltx_wizard.core.plan.plan_md import render_plan
from ltx_wizard.core.plan.plan_words import video_only_note
from ltx_wizard.core.plan.run_files import plan_files
from ltx_wizard.core.plan.record import DataRecord, PlanRecord, Schedule
from ltx_wizard.core.plan.memory_section import HostSource
from ltx_wizard.core.plan.plan_steps import gate_stop_message  # noqa: F401  (commands import it here)
from ltx_wizard.core.plan.writer import write_plan  # noqa: F401  (callers import it from here)
from ltx_wizard.core.gpu.tiers import nominal_gb
from ltx_wizard.core.io.workspace import RunFolder, dataset_name
from ltx_wizard.core.io.trainer_config import trainer_config
from ltx_wizard.core.io.yaml_patch import load_yaml
from ltx_wizard.core.preprocess.preprocess_state import STATE_FILE, PreprocessState


def prepare_plan(
    request: PlanRequest,
    assessment: Assessment,
    *,
    now: datetime | None = None,
    env: Mapping[str, str] | None = None,
    host: HostSource = None,
    simulate: str | None = None,
    stand_in: StandIn | None = None,
) -> PlanDraft:
    """Validate every input and compute the run folder's contents; writes nothing. The named
    steps (core/plan/plan_steps.py; config in config_step.py) each hand on what they found: gate ->
    inspect -> workspace -> config -> launch -> render.
    `host`: RAM/disk readings or a function of the run folder (default: /proc and statvfs)."""
    env = os.environ if env is None else env
    notes = steps.Notes()
    gpus = steps.gate(request, assessment, notes)
    found = steps.inspect(request, assessment, env, notes, simulated=stand_in is not None)
    folder = steps.workspace(request, found, env, now, notes)
    configured = config_step.configure(request, assessment, gpus, found, folder, notes, host)
    launched = steps.launch(request, assessment, gpus, found, folder, configured, notes)
    return _render(request, assessment, gpus, found, folder, configured, launched, notes, simulate, stand_in)


def _render(
    request: PlanRequest,
    assessment: Assessment,
    gpus: steps.Gpus,
    found: steps.Inspected,
    folder: RunFolder,
    configured: steps.Configured,
    launched: steps.Launched,
    notes: steps.Notes,
    simulate: str | None,
    stand_in: StandIn | None,
) -> PlanDraft:
    """The plan's record, plan.md rendered from it, and the draft the TUI shows for approval."""
    # Against the shipped file, so the low-VRAM keys applied to a recipe show in the diff too.
    diff = config_gen.config_diff(
        found.start.shipped_text, configured.config_text, f"{found.base_path}", f"{folder.config}"
    )
    rec = _record(request, assessment, gpus, found, folder, configured, launched, notes, simulate)
    rec = dataclasses.replace(
        rec,
        written=plan_files(
            accelerate=launched.accelerate.text is not None,
            preprocess=found.dataset is not None,
            sbatch=launched.multinode is not None and launched.slurm_text is not None,
        ),
    )
    state = _preprocess_state(found, simulate, folder.root)
    return PlanDraft(
        record=rec,
        plan_text=render_plan(rec, None, state),  # the state says where the held-out clips go
        diff=diff,
        changes=dict(configured.changes.changes),
        launch=launched.launch,
        accelerate_text=launched.accelerate.text,
        warnings=tuple(notes.risks + notes.warnings),
        trainer_dir=found.checkout.trainer_dir,
        uv_path=found.checkout.uv_path,
        accepted_risk=bool(assessment.gate_blocked and request.accept_risk),
        host=configured.memory.host,
        memory_lines=configured.memory.lines,
        multinode=launched.multinode,
        slurm_text=launched.slurm_text,
        stand_in=stand_in,
        run_id=launched.run_id,
        preprocess_text=None if state is None else STATE_FILE.encode(state),
    )


def _preprocess_state(found: steps.Inspected, simulate: str | None, run_dir: Path) -> PreprocessState | None:
    if found.dataset is None:
        return None
    from ltx_wizard.core.preprocess.held_out import plan_held_out

    plan = found.dataset
    state = PreprocessState(
        dataset_file=plan.report.dataset,
        data_root=plan.data_root,
        spec=plan.spec,
        trainer_dir=found.checkout.trainer_dir,
        simulate=bool(simulate),
        samples=plan.report.kept,
        silent=plan.report.silent_samples,
        reused=plan.reused,
        held_out=plan_held_out(run_dir, plan.report.dataset, plan.data_root),
    )
    return state


def _data_record(found: steps.Inspected) -> DataRecord:
    data, plan = found.data, found.dataset
    common: dict[str, Any] = dict(root=data.path, folders=data.folders, samples=data.sample_count)
    if plan is None:
        return DataRecord(name=dataset_name(data.path), **common)
    report = plan.report
    return DataRecord(
        name=dataset_name(data.path),
        source=report.dataset,
        listed=report.rows,
        bucket=report.buckets,
        reused=plan.reused,
        clip_lines=tuple(report.warnings),
        unchecked=report.not_checked,
        **common,
    )


def _record(
    request: PlanRequest,
    assessment: Assessment,
    gpus: steps.Gpus,
    found: steps.Inspected,
    folder: RunFolder,
    configured: steps.Configured,
    launched: steps.Launched,
    notes: steps.Notes,
    simulate: str | None,
) -> PlanRecord:
    multi, launch = launched.multinode, launched.launch
    config = load_yaml(configured.config_text)
    batch = configured.batch
    keys = trainer_config(config)
    return PlanRecord(
        run_name=folder.root.name,
        run_dir=folder.root,
        request=request,
        tier=assessment.tier.value,
        per_gpu_vram_gb=assessment.per_gpu_vram_gb,
        gpu_lines=tuple(_gpu_line(g) for g in assessment.probe.gpus),
        recipe=found.start.recipe.name,
        recipe_modes=found.start.recipe.modes,
        run_mode=found.start.recipe.run_mode,
        training_mode=request.training_mode,
        base_config=found.base_name,
        base_path=found.base_path,
        base_text=found.start.shipped_text,
        config_text=configured.config_text,
        applied=configured.about.applied,
        skipped=configured.about.skipped,
        data=_data_record(found),
        schedule=Schedule(
            steps=keys.optimization.steps,
            batch_size=batch.batch_size,
            accumulation=batch.accumulation,
            effective_batch=batch.achieved,
            num_gpus=gpus.total,
            nodes=gpus.nodes,
        ),
        launch_line=multi.submit_line() if multi else launch.shell_line(),
        launch_style=multi.style if multi else launch.style,
        multinode_lines=tuple(
            plan_section(
                multi,
                checkpoint_every=keys.checkpoints.interval,
            )
        )
        if multi
        else (),
        host_lines=configured.memory.lines,
        video_only_note=video_only_note(found.video_change, found.base_name, config),
        assumptions=tuple(notes.assumptions),
        risks=tuple(notes.risks),
        warnings=tuple(notes.warnings),
        checkpoint=found.checkpoint,
        simulate=simulate,
        keep=configured.keep,
    )


def _gpu_line(gpu: GpuInfo) -> str:
    size = "memory unknown" if gpu.memory_total_bytes is None else f"{nominal_gb(gpu.memory_total_bytes)} GB"
    return f"{gpu.index}: {gpu.name} ({size})"
