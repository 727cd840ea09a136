"""Inputs -> a written run folder, in two steps: `prepare_plan` (everything computed, nothing
written; the TUI shows it for approval) and `write_plan` (core/plan_writer.py: atomic, locked,
refuses overwrite).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal, Mapping

from pydantic import BaseModel, ConfigDict

from ltx_wizard.core import config_gen
from ltx_wizard.core.accelerate_config import render_accelerate_yaml
from ltx_wizard.core.assessment import Assessment
from ltx_wizard.core.checkout import find_checkout
from ltx_wizard.core.checkpoint import inspect_checkpoint
from ltx_wizard.core.data_sources import audio_folder, video_only, video_only_change
from ltx_wizard.core.bounded_io import CONFIG_MAX_BYTES, read_text
from ltx_wizard.core.dataset import inspect_data_root
from ltx_wizard.core.errors import GateStop, UsageError, WizardError
from ltx_wizard.core.launch import LaunchPlan, build_launch
from ltx_wizard.core.launch_script import simulated_spec, spec_of
from ltx_wizard.core.multinode import (
    MultiNodePlan,
    parse_nodes,
    plan_multinode,
    plan_section,
    require_gpus_per_node,
)
from ltx_wizard.core.plan_md import PlanContent, render_plan, video_only_note
from ltx_wizard.core.recipes import DEFAULT_RECIPE, PlanBase, plan_base, recipe_notes
from ltx_wizard.core.plan_memory import HostCheck, HostSource, plan_memory
from ltx_wizard.core.plan_writer import write_plan  # noqa: F401  (callers import it from here)
from ltx_wizard.core.run_meta import LaunchSpec
from ltx_wizard.core.safe_fs import check_run_dir
from ltx_wizard.core.slurm_script import render_sbatch, slurm_options
from ltx_wizard.core.split_pack import component_files
from ltx_wizard.core.text_encoder import check_compatibility, inspect_text_encoder
from ltx_wizard.core.tiers import Tier, launch_style, nominal_gb
from ltx_wizard.core.workspace import (
    ENV_VAR,
    RunFolder,
    choose_root,
    dataset_name,
    default_run_name,
    validate_run_name,
)
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

    @property
    def start(self) -> LaunchSpec:
        """What launch.sh runs: the simulated trainer on simulated GPUs, `sbatch` for several
        nodes, else the planned command."""
        if self.simulate:
            return simulated_spec(self.run_dir, self.simulate)
        if self.multinode is not None:
            return LaunchSpec(argv=["sbatch", str(self.multinode.sbatch_path)], cwd=self.run_dir)
        return spec_of(self.launch)

    def run_meta(self) -> str:
        """run.json: what later commands (autotune, the TUI) need and cannot read off config.yaml."""
        return json.dumps(
            {
                "trainer_root": str(self.trainer_dir.parents[1]),
                "tier": self.tier.value,
                "num_gpus": self.launch.num_processes,  # one node's: autotune stays single-node
                "nodes": self.multinode.nodes if self.multinode is not None else 1,
                "accepted_risk": self.accepted_risk,
                "recipe": self.recipe,
                "launch": self.start.model_dump(mode="json"),
            },
            indent=2,
        ) + "\n"

    def shell_line(self) -> str:
        """What the user runs to train: `sbatch` for several nodes, else the launch line."""
        return self.multinode.submit_line() if self.multinode is not None else self.launch.shell_line()

    @property
    def folder(self) -> RunFolder:
        return RunFolder(self.run_dir)


def _read_text(path: Path) -> str:
    # Bytes decoded as they are: CRLF files stay CRLF, so the written config differs only where
    # patched. Size-capped and regular files only (a planted FIFO or a 38 MB file is refused).
    try:
        text = read_text(path, what="shipped config", limit=CONFIG_MAX_BYTES)
        load_yaml(text)  # aliases, depth, syntax: refused here, as bad input
    except WizardError as exc:
        raise UsageError(f"cannot use the shipped config {path}: {exc.message}") from None
    return text


def prepare_plan(
    request: PlanRequest,
    assessment: Assessment,
    *,
    now: datetime | None = None,
    env: Mapping[str, str] | None = None,
    host: HostSource = None,
    simulate: str | None = None,
) -> PlanDraft:
    """Validate every input and compute the run folder's contents; writes nothing.
    `host`: RAM/disk readings or a function of the run folder (default: /proc and statvfs)."""
    env = os.environ if env is None else env
    nodes = parse_nodes(request.nodes)
    slurm = slurm_options(request.slurm_time, request.slurm_partition, request.slurm_cpus)
    if nodes > 1:
        require_gpus_per_node(assessment.num_gpus)
    warnings: list[str] = []
    assumptions: list[str] = []
    risks: list[str] = []
    if assessment.gate_blocked:
        if not request.accept_risk:
            raise GateStop(gate_stop_message(assessment.gate_message))
        risks.append(
            f"{assessment.per_gpu_vram_gb} GB per GPU is below the trainer's 32 GB minimum; the "
            "gate was overridden with --accept-risk, so this run may run out of memory."
        )
    if assessment.tier is Tier.UNKNOWN or assessment.policy.base_config is None:
        raise UsageError("per-GPU memory is unknown: pass --vram-gb N to pick a tier")
    num_gpus = max(1, assessment.num_gpus)  # per node
    total_gpus = num_gpus * nodes  # the tier is per GPU; batch and full-FT rules count them all
    if request.training_mode == "full":
        risks += config_gen.check_full_finetune(total_gpus, assessment.tier, request.force_full)
    if request.effective_batch is not None and request.effective_batch < 1:
        raise UsageError(f"--effective-batch {request.effective_batch} must be 1 or more")

    checkout = find_checkout(request.trainer_root, env=env)
    warnings += list(checkout.notes)
    # The recipe's shipped file, with the low-VRAM keys applied on the 32GB / 40–60GB tiers.
    start: PlanBase = plan_base(checkout.trainer_dir / "configs", request.recipe,
                                assessment.tier, _read_text)
    base_name, base_path = start.base.source, start.shipped_path
    base_text = start.base.text

    ckpt = inspect_checkpoint(request.checkpoint)
    te = inspect_text_encoder(request.text_encoder)
    warnings += [w for w in (check_compatibility(ckpt, te),) if w]  # ltx-core only warns
    # split_pack.py: a split pack's video VAE always, its audio VAE where the config loads it
    video_vae, audio_vae, notes, ignored = component_files(
        ckpt, request.video_vae, request.audio_vae, load_yaml(base_text))
    assumptions += notes
    warnings += ignored
    # The shipped file's strategy names the data folders (core/data_sources.py, the trainer's rule).
    strategy = get_dotted(load_yaml(base_text), "training_strategy", None)
    video_change = video_only_change(strategy) if request.video_only else None
    if request.video_only and video_change is None:
        warnings.append(f"video only: {base_name} trains no audio (or only audio), so nothing "
                        "was changed for it")
    dropped = audio_folder(strategy) if video_change is not None else None
    if video_change is not None:
        strategy = video_only(strategy)
    data = inspect_data_root(request.data_root, strategy=strategy)
    if dropped and any((data.path / dropped).glob("**/*.pt")):
        warnings.append(f"video only: {data.path / dropped} holds audio latents, which this run "
                        "does not train on (drop --video-only to train audio too)")
    if data.orphans or data.lacking:
        warnings.append(data.describe())

    root = choose_root(request.workspace, env)
    if request.workspace is None:
        source = f"${ENV_VAR}" if env.get(ENV_VAR) and root == Path(env[ENV_VAR]).resolve() else None
        assumptions.append(f"Workspace root {root}" + (f" (from {source})." if source else
                                                       " (the first writable default)."))
    if request.run_name is None:
        run_name = default_run_name(data.path, now=now, mode=start.recipe.run_mode)
        assumptions.append(f"Run name `{run_name}` (mode, dataset name, date and time).")
    else:
        run_name = validate_run_name(request.run_name)
    folder = RunFolder(root / run_name)
    check_run_dir(folder.root)  # a file or a planted symlink there is refused before approval

    changes = config_gen.compute_changes(
        base_text,
        model_path=ckpt.path,
        text_encoder_path=te.path,
        data_root=data.path,
        output_dir=folder.outputs,
        video_vae_path=video_vae,
        audio_vae_path=audio_vae,
        training_mode=request.training_mode,
        num_gpus=total_gpus,
        effective_batch=request.effective_batch,
    )
    warnings += changes.warnings
    if video_change is not None:
        changes.changes[video_change[0]] = video_change[1]
    config_text = config_gen.build_config(base_text, changes.changes)
    config_gen.require_self_check(config_text, str(folder.config))
    batch = changes.batch
    assert batch is not None
    memory = plan_memory(config_text, ckpt, te, num_gpus, total_gpus, folder.root, assessment,
                         host)
    warnings += memory.warnings
    if request.effective_batch is None:
        assumptions.append(f"Effective batch {batch.wanted}: the shipped file's batch_size x "
                           "gradient_accumulation_steps (pass --effective-batch N to change it).")
    if request.training_mode == "lora":
        assumptions.append("LoRA training (the default; --training-mode full for a full fine-tune).")
    about = recipe_notes(start, assessment.tier, overridden=changes.changes)
    assumptions += about.assumptions
    warnings += about.warnings
    if assessment.mixed_models:
        warnings.append("mixed GPU models: the smallest GPU's tier applies to all of them")
    if assessment.probe.cuda_visible_devices:
        assumptions.append(f"Only the GPUs in CUDA_VISIBLE_DEVICES="
                           f"{assessment.probe.cuda_visible_devices}; the launch line carries it.")
    if assessment.vram_stated:
        assumptions.append(f"{assessment.per_gpu_vram_gb} GB per GPU as stated, not as probed.")

    style = launch_style(num_gpus, request.training_mode)
    accel = render_accelerate_yaml(style, num_gpus, checkout.config_path(f"accelerate/{style}.yaml"))
    if accel.note and num_gpus > 1:
        assumptions.append(accel.note[0].upper() + accel.note[1:] + ".")
    launch = build_launch(
        checkout.root, folder.config, num_gpus, request.training_mode,
        assessment.probe.cuda_visible_devices,
        folder.accelerate_config if accel.text is not None else None,
    )
    # Against the shipped file, so the low-VRAM keys applied to a recipe show in the diff too.
    diff = config_gen.config_diff(start.shipped_text, config_text, f"{base_path}", f"{folder.config}")
    multi = slurm_text = None
    if nodes > 1:
        multi = plan_multinode(
            nodes=nodes, gpus_per_node=num_gpus, training_mode=request.training_mode,
            trainer_dir=checkout.trainer_dir, run_dir=folder.root, config=folder.config,
            shipped_accelerate_dir=checkout.config_path("accelerate/ddp.yaml").parent,
            data_root=data.path, output_dir=folder.outputs, effective_batch=batch.achieved,
        )
        slurm_text = render_sbatch(multi, slurm, run_name)
        if assessment.probe.cuda_visible_devices:
            warnings.append("CUDA_VISIBLE_DEVICES is not carried into slurm.sbatch: Slurm gives "
                            "each node its --gpus-per-node GPUs")
    elif slurm != slurm_options():
        warnings.append("--slurm-time/--slurm-partition/--slurm-cpus apply only with --nodes 2 "
                        "or more: ignored")
    content = PlanContent(
        run_name=run_name,
        run_dir=str(folder.root),
        training_mode=request.training_mode,
        dataset_path=str(data.path),
        dataset_name=dataset_name(data.path),
        sample_count=data.sample_count,
        config=load_yaml(config_text),
        base_config=base_name,
        effective_batch=batch.achieved,
        num_gpus=total_gpus,
        nodes=nodes,
        gpu_lines=tuple(_gpu_line(g) for g in assessment.probe.gpus),
        tier=assessment.tier,
        per_gpu_vram_gb=assessment.per_gpu_vram_gb,
        launch_line=multi.submit_line() if multi else launch.shell_line(),
        launch_style=multi.style if multi else launch.style,
        multinode_lines=tuple(plan_section(
            multi, checkpoint_every=get_dotted(load_yaml(config_text), "checkpoints.interval", None),
        )) if multi else (),
        assumptions=tuple(assumptions),
        risks=tuple(risks),
        warnings=tuple(warnings),
        diff=diff,
        host_lines=memory.lines,
        dataset_note=f"Each sample is a file in every folder the config reads: "
        f"{', '.join(f + '/' for f in data.folders)}.",
        video_only_note=video_only_note(video_change, base_name, load_yaml(config_text)),
        mode=start.recipe.run_mode,
        recipe=start.recipe.name,
        recipe_modes=start.recipe.modes,
        applied=about.applied,
        skipped=about.skipped,
    )
    return PlanDraft(
        run_dir=folder.root,
        run_name=run_name,
        tier=assessment.tier,
        base_config=base_name,
        base_path=base_path,
        base_text=start.shipped_text,
        config_text=config_text,
        changes=dict(changes.changes),
        plan_text=render_plan(content),
        diff=diff,
        launch=launch,
        accelerate_text=accel.text,
        warnings=tuple(risks + warnings),
        sample_count=data.sample_count,
        trainer_dir=checkout.trainer_dir,
        uv_path=checkout.uv_path,
        accepted_risk=bool(assessment.gate_blocked and request.accept_risk),
        recipe=start.recipe.name,
        recipe_modes=start.recipe.modes,
        applied=about.applied,
        host=memory.host,
        memory_lines=memory.lines,
        multinode=multi,
        slurm_text=slurm_text,
        simulate=simulate,
    )


def gate_stop_message(message: str | None) -> str:
    """The gate's text plus the option that goes past it (CLI commands only)."""
    text = (message or "below the trainer's 32 GB minimum").rstrip().rstrip(".")
    return f"{text}. To try anyway (b), rerun with --accept-risk"


def _gpu_line(gpu) -> str:
    size = "memory unknown" if gpu.memory_total_bytes is None else f"{nominal_gb(gpu.memory_total_bytes)} GB"
    return f"{gpu.index}: {gpu.name} ({size})"
