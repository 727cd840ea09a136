"""The named steps of `prepare_plan` (core/plan/run_plan.py): gate -> inspect -> workspace -> config
-> launch, and the records they hand on. The config step, the largest, lives in config_step.py.
Each step validates its part and hands on what it found, so nothing is inspected twice (the
checkpoint read in `inspect` is the one the draft carries). Notes for plan.md are collected in
one `Notes`, in the order the steps run: plan.md lists them in that order.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from ltx_wizard.core.plan import config_gen
from ltx_wizard.core.launch.accelerate_config import AccelerateYaml, render_accelerate_yaml
from ltx_wizard.core.gpu.assessment import Assessment
from ltx_wizard.core.io.bounded import CONFIG_MAX_BYTES, read_text
from ltx_wizard.core.inputs.checkout import CheckoutInfo, find_checkout
from ltx_wizard.core.inputs.checkpoint import CheckpointInfo, inspect_checkpoint
from ltx_wizard.core.dataset.sources import audio_folder, video_only, video_only_change
from ltx_wizard.core.dataset.data_root import VIDEO_ONLY_FLAG, DataRootInfo, inspect_data_root
from ltx_wizard.core.dataset.checks import Progress
from ltx_wizard.core.dataset.clip_probe import CancelFlag
from ltx_wizard.core.dataset.rows import is_dataset_file
from ltx_wizard.core.preprocess.dataset_planning import (
    DatasetPlan,
    plan_dataset,
    plan_notes,
    planned_root_info,
)
from ltx_wizard.core.base.errors import GateStop, UsageError, WizardError
from ltx_wizard.core.launch.launch_command import LaunchPlan, build_launch
from ltx_wizard.core.launch.multinode import (
    MultiNodePlan,
    parse_nodes,
    plan_multinode,
    require_gpus_per_node,
)
from ltx_wizard.core.inputs.recipes import PlanBase, plan_base
from ltx_wizard.core.io.run_meta import new_run_id
from ltx_wizard.core.io.safe_fs import check_run_dir
from ltx_wizard.core.launch.slurm import SlurmOptions, render_sbatch, slurm_options
from ltx_wizard.core.inputs.split_pack import component_files
from ltx_wizard.core.inputs.text_encoder import TextEncoderInfo, check_compatibility, inspect_text_encoder
from ltx_wizard.core.gpu.tiers import Tier, launch_style
from ltx_wizard.core.io.workspace import (
    ENV_VAR,
    RunFolder,
    choose_root,
    default_run_name,
    validate_run_name,
)
from ltx_wizard.core.io.trainer_config import trainer_config
from ltx_wizard.core.io.yaml_patch import load_yaml

from ltx_wizard.core.plan.plan_request import PlanRequest, require_complete

if TYPE_CHECKING:  # imported where they are used
    from ltx_wizard.core.inputs.recipes import RecipeNotes
    from ltx_wizard.core.inputs.version_fit import Misfit
    from ltx_wizard.core.plan.checkpoint_keep import CheckpointKeep
    from ltx_wizard.core.plan.config_gen import BatchPlan, ConfigChanges
    from ltx_wizard.core.plan.memory_section import PlanMemory


@dataclass
class Notes:
    """What plan.md tells the user besides the config: risks first, then warnings."""

    warnings: list[str] = field(default_factory=list)
    assumptions: list[str] = field(default_factory=list)
    risks: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Gpus:
    nodes: int
    per_node: int
    total: int  # the tier is per GPU; batch and full-FT rules count them all
    slurm: SlurmOptions


@dataclass(frozen=True)
class Inspected:
    """The inputs as read once: the checkout's shipped config, the models, the data."""

    checkout: CheckoutInfo
    start: PlanBase  # the recipe's shipped file, with the tier's low-VRAM keys applied
    base_name: str
    base_path: Path
    base_text: str
    checkpoint: CheckpointInfo
    text_encoder: TextEncoderInfo
    video_vae: Path | None
    audio_vae: Path | None
    data: DataRootInfo
    video_change: tuple[str, object] | None  # the one line --video-only changes, if any
    dataset: DatasetPlan | None = None  # planned from a dataset file: the preprocessing to run


@dataclass(frozen=True)
class Configured:
    changes: ConfigChanges
    config_text: str
    batch: BatchPlan
    memory: PlanMemory  # GPU floor, host RAM and disk for this config
    about: RecipeNotes  # what the recipe's file brings, and what the plan applied to it
    keep: CheckpointKeep  # the checkpoints kept for comparison (checkpoint_keep.py)


@dataclass(frozen=True)
class Launched:
    accelerate: AccelerateYaml
    launch: LaunchPlan
    multinode: MultiNodePlan | None
    slurm_text: str | None
    run_id: str  # run.json's: slurm.sbatch runs only in the folder that names it


def gate_stop_message(message: str | None) -> str:
    """The gate's text plus the option that goes past it (CLI commands only)."""
    text = (message or "below the trainer's 32 GB minimum").rstrip().rstrip(".")
    return f"{text}. To try anyway (b), rerun with --accept-risk"


def gate(request: PlanRequest, assessment: Assessment, notes: Notes) -> Gpus:
    """The node count, the memory gate, the tier and the GPU-count rules."""
    nodes = parse_nodes(request.nodes)
    slurm = slurm_options(request.slurm_time, request.slurm_partition, request.slurm_cpus)
    if nodes > 1:
        require_gpus_per_node(assessment.num_gpus)
    if assessment.gate_blocked:
        if not request.accept_risk:
            raise GateStop(gate_stop_message(assessment.gate_message))
        notes.risks.append(
            f"{assessment.per_gpu_vram_gb} GB per GPU is below the trainer's 32 GB minimum; the "
            "gate was overridden with --accept-risk, so this run may run out of memory."
        )
    if assessment.tier is Tier.UNKNOWN or assessment.policy.base_config is None:
        raise UsageError("per-GPU memory is unknown: pass --vram-gb N to pick a tier")
    per_node = max(1, assessment.num_gpus)
    total = per_node * nodes
    if request.training_mode == "full":
        notes.risks += config_gen.check_full_finetune(total, assessment.tier, request.force_full)
    if request.effective_batch is not None and request.effective_batch < 1:
        raise UsageError(f"--effective-batch {request.effective_batch} must be 1 or more")
    return Gpus(nodes=nodes, per_node=per_node, total=total, slurm=slurm)


def _read_text(path: Path) -> str:
    # Bytes decoded as they are: CRLF files stay CRLF, so the written config differs only where
    # patched. Size-capped and regular files only (a planted FIFO or a 38 MB file is refused).
    try:
        text = read_text(path, what="shipped config", limit=CONFIG_MAX_BYTES)
        load_yaml(text)  # aliases, depth, syntax: refused here, as bad input
    except WizardError as exc:
        raise UsageError(f"cannot use the shipped config {path}: {exc.message}") from None
    return text


def inspect(
    request: PlanRequest,
    assessment: Assessment,
    env: Mapping[str, str],
    notes: Notes,
    *,
    simulated: bool = False,
) -> Inspected:
    """Read the checkout's shipped config, the models and the data, once each. The Paths
    screen's and `check`'s live checks run these same steps on a draft (model_checks.py).
    `simulated`: a stand-in runs in the trainer's place (launch.sh, autotune, preprocess)."""
    require_complete(request)
    checkout = find_checkout(request.trainer_root, env=env)
    notes.warnings += checkout_warnings(checkout, simulated)
    start = recipe_base(checkout, request, assessment.tier)
    base_name, base_path, base_text = start.base.source, start.shipped_path, start.base.text
    ckpt, te, video_vae, audio_vae = _inspect_models(request, base_text, notes)
    models = {
        "checkpoint": ckpt.path,
        "text_encoder": te.path,
        "video_vae": video_vae,
        "audio_vae": audio_vae,
    }
    data, video_change, dataset = inspect_data(request, base_name, load_yaml(base_text), notes, models)
    found = misfits(checkout, ckpt, te, data)
    if found:
        raise UsageError("; and ".join(m.message for m in found))
    return Inspected(
        checkout=checkout,
        start=start,
        base_name=base_name,
        base_path=base_path,
        base_text=base_text,
        checkpoint=ckpt,
        text_encoder=te,
        video_vae=video_vae,
        audio_vae=audio_vae,
        data=data,
        video_change=video_change,
        dataset=dataset,
    )


def checkout_warnings(checkout: CheckoutInfo, simulated: bool) -> list[str]:
    """The checkout's notes worth a warning. On simulated GPUs the stand-in runs in the trainer's
    place, so uv and the checkout's environment are never used: their notes would be untrue."""
    if not simulated:
        return list(checkout.notes)
    unused = ("uv is not on PATH", "not synced")  # core/inputs/checkout.py's environment notes
    return [n for n in checkout.notes if not n.startswith(unused)]


def misfits(
    checkout: CheckoutInfo, ckpt: CheckpointInfo, te: TextEncoderInfo | None, data: DataRootInfo | None
) -> list[Misfit]:
    """Checkout, models and latents that do not fit together (core/plan/fit_gate.py): plan
    stops on them, the live checks show each under its field."""
    from ltx_wizard.core.plan.fit_gate import misfits as fit_misfits

    samples = data.samples if data is not None else ()
    return fit_misfits(
        checkout.root,
        ckpt,
        te,
        data.path if samples else None,  # type: ignore[union-attr]  # samples: data read
        samples[0] if samples else None,
    )


def recipe_base(checkout: CheckoutInfo, request: PlanRequest, tier: Tier) -> PlanBase:
    """The recipe's shipped file, with the low-VRAM keys applied on the 32GB / 40–60GB tiers."""
    return plan_base(checkout.trainer_dir / "configs", request.recipe, tier, _read_text)


def read_text_encoder(
    request: PlanRequest, ckpt: CheckpointInfo | None
) -> tuple[TextEncoderInfo, str | None]:
    """The Gemma as read, and ltx-core's compatibility warning against the checkpoint (it only
    warns: model_loader.py), None when they match or no checkpoint was readable."""
    te = inspect_text_encoder(request.text_encoder)  # type: ignore[arg-type]  # required: checked first
    return te, (check_compatibility(ckpt, te) if ckpt is not None else None)


def _inspect_models(
    request: PlanRequest, base_text: str, notes: Notes
) -> tuple[CheckpointInfo, TextEncoderInfo, Path | None, Path | None]:
    ckpt = inspect_checkpoint(request.checkpoint)  # type: ignore[arg-type]  # required: checked first
    te, warning = read_text_encoder(request, ckpt)
    notes.warnings += [warning] if warning else []
    # split_pack.py: a split pack's video VAE always, its audio VAE where the config loads it
    video_vae, audio_vae, assumed, ignored = component_files(
        ckpt, request.video_vae, request.audio_vae, load_yaml(base_text)
    )
    notes.assumptions += assumed
    notes.warnings += ignored
    return ckpt, te, video_vae, audio_vae


def inspect_data(
    request: PlanRequest,
    base_name: str,
    base: Mapping[str, Any],
    notes: Notes,
    models: dict[str, Path | None],
    *,
    option: str = VIDEO_ONLY_FLAG,
    on_progress: Progress | None = None,
    cancelled: CancelFlag = None,
) -> tuple[DataRootInfo, tuple[str, object] | None, DatasetPlan | None]:
    """(the data as the config will read it, the video-only change, the dataset's plan);
    `base`: the recipe's shipped config, as loaded."""
    # The shipped file's strategy names the data folders (core/dataset/sources.py, the trainer's rule).
    strategy = trainer_config(base).training_strategy
    video_change = video_only_change(strategy) if request.video_only else None
    if request.video_only and video_change is None:
        notes.warnings.append(
            f"video only: {base_name} trains no audio (or only audio), so nothing was changed for it"
        )
    dropped = audio_folder(strategy) if video_change is not None else None
    if video_change is not None and strategy is not None:
        strategy = video_only(strategy)
    root = request.data_root
    assert root is not None
    if is_dataset_file(root):  # clips, not latents: core/preprocess/dataset_planning.py
        dataset = _plan_dataset(request, base, strategy, notes, models, on_progress, cancelled)
        return planned_root_info(dataset, strategy), video_change, dataset
    data = inspect_data_root(root, strategy=strategy, option=option)
    if dropped and any((data.path / dropped).glob("**/*.pt")):
        notes.warnings.append(
            f"video only: {data.path / dropped} holds audio latents, which this "
            "run does not train on (drop --video-only to train audio too)"
        )
    if data.orphans or data.lacking:
        notes.warnings.append(data.describe())
    return data, video_change, None


def _plan_dataset(
    request: PlanRequest,
    base: Mapping[str, Any],
    strategy: Mapping[str, Any] | None,
    notes: Notes,
    models: dict[str, Path | None],
    on_progress: Progress | None = None,
    cancelled: CancelFlag = None,
) -> DatasetPlan:
    # the skill: --load-text-encoder-in-8bit as the tier's shipped config loads Gemma
    eight_bit = trainer_config(base).acceleration.load_text_encoder_in_8bit or False
    assert request.data_root is not None  # a dataset file, by the caller's test
    plan = plan_dataset(
        request.data_root,
        strategy,
        buckets=request.resolution_buckets,
        models=models,
        lora_trigger=request.lora_trigger,
        load_text_encoder_in_8bit=eight_bit is True,
        precomputed_dir=request.precomputed_dir,
        on_progress=on_progress,
        cancelled=cancelled,
    )
    assumptions, warnings = plan_notes(plan, request.resolution_buckets)
    notes.assumptions += assumptions
    notes.warnings += warnings
    return plan


def workspace(
    request: PlanRequest, found: Inspected, env: Mapping[str, str], now: datetime | None, notes: Notes
) -> RunFolder:
    """The run folder: the workspace root and the run name, given or chosen."""
    data_path = found.data.path
    root = choose_root(request.workspace, env)
    if request.workspace is None:
        source = f"${ENV_VAR}" if env.get(ENV_VAR) and root == Path(env[ENV_VAR]).resolve() else None
        notes.assumptions.append(
            f"Workspace root {root}" + (f" (from {source})." if source else " (the first writable default).")
        )
    if request.run_name is None:
        run_name = default_run_name(data_path, now=now, mode=found.start.recipe.run_mode)
        notes.assumptions.append(f"Run name `{run_name}` (mode, dataset name, date and time).")
    else:
        run_name = validate_run_name(request.run_name)
    folder = RunFolder(root / run_name)
    check_run_dir(folder.root)  # a file or a planted symlink there is refused before approval
    return folder


def launch(
    request: PlanRequest,
    assessment: Assessment,
    gpus: Gpus,
    found: Inspected,
    folder: RunFolder,
    configured: Configured,
    notes: Notes,
) -> Launched:
    """How the run starts: the one launch plan (core/launch/launch_command.py), plus slurm.sbatch for nodes."""
    checkout = found.checkout
    style = launch_style(gpus.per_node, request.training_mode)
    accel = render_accelerate_yaml(style, gpus.per_node, checkout.config_path(f"accelerate/{style}.yaml"))
    if accel.note and gpus.per_node > 1:
        notes.assumptions.append(accel.note[0].upper() + accel.note[1:] + ".")
    plan = build_launch(
        checkout.root,
        folder.config,
        gpus.per_node,
        request.training_mode,
        assessment.probe.cuda_visible_devices,
        folder.accelerate_config if accel.text is not None else None,
    )
    multi = slurm_text = None
    run_id = new_run_id()
    if gpus.nodes > 1:
        multi = plan_multinode(
            nodes=gpus.nodes,
            gpus_per_node=gpus.per_node,
            training_mode=request.training_mode,
            trainer_dir=checkout.trainer_dir,
            run_dir=folder.root,
            config=folder.config,
            shipped_accelerate_dir=checkout.config_path("accelerate/ddp.yaml").parent,
            data_root=found.data.path,
            output_dir=folder.outputs,
            effective_batch=configured.batch.achieved,
        )
        slurm_text = render_sbatch(multi, gpus.slurm, folder.root.name, run_id)
        if assessment.probe.cuda_visible_devices:
            notes.warnings.append(
                "CUDA_VISIBLE_DEVICES is not carried into slurm.sbatch: Slurm "
                "gives each node its --gpus-per-node GPUs"
            )
    elif gpus.slurm != slurm_options():
        notes.warnings.append(
            "--slurm-time/--slurm-partition/--slurm-cpus apply only with --nodes 2 or more: ignored"
        )
    return Launched(accelerate=accel, launch=plan, multinode=multi, slurm_text=slurm_text, run_id=run_id)
