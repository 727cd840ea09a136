"""Inputs -> a written run folder, in two steps: `prepare_plan` (everything computed, nothing
written; the TUI shows it for approval) and `write_plan` (core/plan/writer.py: atomic, locked,
refuses overwrite).
"""

from __future__ import annotations

import os
from datetime import datetime
from typing import Mapping

from ltx_wizard.core.plan import config_gen
from ltx_wizard.core.plan import steps
from ltx_wizard.core.plan.draft import PlanDraft, PlanRequest  # noqa: F401  (callers import them here)
from ltx_wizard.core.base.stand_in import StandIn
from ltx_wizard.core.gpu.assessment import Assessment
from ltx_wizard.core.launch.multinode import plan_section
from ltx_wizard.core.plan.plan_md import PlanContent, render_plan, video_only_note
from ltx_wizard.core.plan.memory_section import HostSource
from ltx_wizard.core.plan.steps import gate_stop_message  # noqa: F401  (commands import it here)
from ltx_wizard.core.plan.writer import write_plan  # noqa: F401  (callers import it from here)
from ltx_wizard.core.gpu.tiers import nominal_gb
from ltx_wizard.core.io.workspace import RunFolder, dataset_name
from ltx_wizard.core.io.yaml_patch import get_dotted, load_yaml


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
    steps (core/plan/steps.py) each hand on what they found: gate -> inspect -> workspace ->
    config -> launch -> render.
    `host`: RAM/disk readings or a function of the run folder (default: /proc and statvfs)."""
    env = os.environ if env is None else env
    notes = steps.Notes()
    gpus = steps.gate(request, assessment, notes)
    found = steps.inspect(request, assessment, env, notes)
    folder = steps.workspace(request, found, env, now, notes)
    configured = steps.configure(request, assessment, gpus, found, folder, notes, host)
    launched = steps.launch(request, assessment, gpus, found, folder, configured, notes)
    return _render(request, assessment, gpus, found, folder, configured, launched, notes, simulate,
                   stand_in)


def _render(request: PlanRequest, assessment: Assessment, gpus: steps.Gpus,
            found: steps.Inspected, folder: RunFolder, configured: steps.Configured,
            launched: steps.Launched, notes: steps.Notes, simulate: str | None,
            stand_in: StandIn | None) -> PlanDraft:
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
        stand_in=stand_in,
        checkpoint=found.checkpoint,
        run_id=launched.run_id,
        preprocess_text=_preprocess_text(found, simulate),
    )


def _preprocess_text(found: steps.Inspected, simulate: str | None) -> str | None:
    if found.dataset is None:
        return None
    from ltx_wizard.core.base.records import json_text
    from ltx_wizard.core.preprocess.state import PreprocessState

    plan = found.dataset
    state = PreprocessState(dataset_file=plan.report.dataset, data_root=plan.data_root,
                            spec=plan.spec, trainer_dir=found.checkout.trainer_dir,
                            simulate=bool(simulate), samples=plan.report.kept,
                            silent=plan.report.silent_samples,
                            reused=plan.reused)
    return json_text(state)


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
