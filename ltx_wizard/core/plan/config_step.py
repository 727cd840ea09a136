"""The config step of `prepare_plan` (core/plan/run_plan.py): config.yaml from the shipped file,
with the paths, batch, mode, W&B and validation settled, self-checked, and the memory it needs.

Split from plan_steps.py, which holds the records the steps hand on (this one returns `Configured`):
its gate -> inspect -> workspace steps hand this one what they found, and its `launch` reads what
this returns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ltx_wizard.core.plan import config_gen
from ltx_wizard.core.gpu.assessment import Assessment
from ltx_wizard.core.plan.checkpoint_keep import CheckpointKeep, keep_warning, plan_keep
from ltx_wizard.core.plan.checkpoint_saves import checkpoint_bytes
from ltx_wizard.core.plan.host_limits import HostReadings
from ltx_wizard.core.plan.memory_section import HostSource, host_readings, plan_memory
from ltx_wizard.core.plan.training_state_note import training_state
from ltx_wizard.core.inputs.recipes import PlanBase, RecipeNotes, recipe_notes
from ltx_wizard.core.gpu.tiers import launch_style
from ltx_wizard.core.validation.form import offered_media
from ltx_wizard.core.validation.validation_choice import plan_validation
from ltx_wizard.core.io.workspace import RunFolder
from ltx_wizard.core.dataset.loader_batches import starved_loader
from ltx_wizard.core.io.trainer_config import trainer_config
from ltx_wizard.core.io.yaml_patch import load_yaml, patch_yaml_text
from ltx_wizard.core.plan.plan_request import PlanRequest
from ltx_wizard.core.plan.plan_steps import Configured, Gpus, Inspected, Notes

if TYPE_CHECKING:  # imported where it is used
    from ltx_wizard.core.preprocess.latent_disk import LatentDisk


def configure(
    request: PlanRequest,
    assessment: Assessment,
    gpus: Gpus,
    found: Inspected,
    folder: RunFolder,
    notes: Notes,
    host: HostSource = None,
) -> Configured:
    """config.yaml: the shipped file with the paths, batch and mode patched in, self-checked."""
    changes = config_gen.compute_changes(
        found.base_text,
        model_path=found.checkpoint.path,
        text_encoder_path=found.text_encoder.path,
        data_root=found.data.path,
        output_dir=folder.outputs,
        video_vae_path=found.video_vae,
        audio_vae_path=found.audio_vae,
        training_mode=request.training_mode,
        num_gpus=gpus.total,
        effective_batch=request.effective_batch,
        base_name=str(found.base_path),
    )
    notes.warnings += changes.warnings
    _wandb(request, found, changes.changes, notes)
    if found.video_change is not None:
        changes.changes[found.video_change[0]] = found.video_change[1]
    state, said = training_state(
        load_yaml(found.base_text),
        request.full_training_state,
        launch_style(gpus.per_node, request.training_mode),
    )
    changes.changes.update(state)
    notes.assumptions.append(said)
    config_text = _with_validation(
        request, found, config_gen.build_config(found.base_text, changes.changes), notes
    )
    config_text, keep, (readings, latents) = _keep(config_text, found, host, folder, notes, changes)
    config_gen.require_self_check(
        config_text, str(folder.config), data_pending=found.dataset is not None and not found.dataset.reused
    )
    batch = _fed_batch(changes, found, gpus, notes)
    memory = plan_memory(
        config_text,
        found.checkpoint,
        found.text_encoder,
        gpus.per_node,
        gpus.total,
        folder.root,
        assessment,
        readings,
        latents,
    )
    notes.warnings += memory.warnings
    about = _config_notes(request, assessment, found.start, changes, notes)
    return Configured(changes, config_text, batch, memory, about, keep)


def _fed_batch(
    changes: config_gen.ConfigChanges, found: Inspected, gpus: Gpus, notes: Notes
) -> config_gen.BatchPlan:
    """The planned batch; a warning where the loader would starve (trainer.py
    LtxvTrainer._init_dataloader: one full batch on every process, or none at all)."""
    batch = changes.batch
    assert batch is not None
    starved = starved_loader(found.data.sample_count, batch.batch_size, gpus.total)
    if starved:
        notes.warnings.append(starved)
    return batch


def _keep(
    config_text: str,
    found: Inspected,
    host: HostSource,
    folder: RunFolder,
    notes: Notes,
    changes: config_gen.ConfigChanges,
) -> tuple[str, CheckpointKeep, tuple[HostReadings, LatentDisk | None]]:
    """The checkpoints kept for comparison, against the free disk of the run folder (less the
    latents still to write there: host_limits.py counts them on the same disk); their keys
    patched through the one patch path, so plan.md's diff shows them. The host is read once
    here, for plan_memory too."""
    config, readings, latents = load_yaml(config_text), host_readings(host, folder.root), _latents(found)
    same_disk = latents is not None and latents.device is not None and latents.device == readings.disk_device
    other = latents.total if same_disk and latents is not None else 0
    keep = plan_keep(config, checkpoint_bytes(config, found.checkpoint), readings.disk_free, other)
    said = keep_warning(keep)
    if said:
        notes.warnings.append(said)
    if keep.changes:
        changes.changes.update(keep.changes)
        config_text = patch_yaml_text(config_text, keep.changes)
    return config_text, keep, (readings, latents)  # the host as read once, for plan_memory


def _with_validation(request: PlanRequest, found: Inspected, config_text: str, notes: Notes) -> str:
    """The recipe's validation samples read files: the user's, or none (core/validation/validation_choice.py)."""
    validation = plan_validation(
        config_text,
        request.validation_media,
        request.validation_prompts,
        request.validation,
        found.start.recipe.name,
        offered=offered_media(config_text, found.data.path),
    )
    notes.assumptions += validation.notes
    notes.warnings += validation.warnings
    return validation.text


def _latents(found: Inspected) -> LatentDisk | None:
    """The preprocessing still to run, as disk it will write (core/preprocess/latent_disk.py)."""
    plan = found.dataset
    if plan is None or plan.reused:
        return None
    from ltx_wizard.core.dataset.buckets import parse_buckets
    from ltx_wizard.core.inputs.version_fit import checkpoint_needs, gemma_hidden_size
    from ltx_wizard.core.preprocess.latent_disk import latent_disk

    needs = checkpoint_needs(found.checkpoint, gemma_hidden_size(found.text_encoder))
    return latent_disk(
        plan.data_root,
        len(plan.report.kept),
        parse_buckets(plan.spec.buckets),
        needs.video_width,
        needs.audio_width,
        not plan.spec.skip_audio,
    )


def _wandb(request: PlanRequest, found: Inspected, changes: dict[str, object], notes: Notes) -> None:
    """A config that enables W&B: the login read as wandb reads it (core/inputs/wandb_login.py)."""
    from ltx_wizard.core.inputs.wandb_login import check_login, decide

    enabled = trainer_config(load_yaml(found.base_text)).wandb.enabled
    login = None
    if enabled is True and request.wandb is None:
        login = check_login(found.checkout.uv_path, found.checkout.trainer_dir)
    decision = decide(enabled, request.wandb, login, found.base_name)
    if decision.disable:
        changes["wandb.enabled"] = False
    if decision.note:
        (notes.warnings if decision.disable else notes.assumptions).append(decision.note)


def _config_notes(
    request: PlanRequest,
    assessment: Assessment,
    start: PlanBase,
    changes: config_gen.ConfigChanges,
    notes: Notes,
) -> RecipeNotes:
    assumptions, batch = notes.assumptions, changes.batch
    assert batch is not None
    if request.effective_batch is None:
        assumptions.append(
            f"Effective batch {batch.wanted}: the shipped file's batch_size x "
            "gradient_accumulation_steps (pass --effective-batch N to change it)."
        )
    if request.training_mode == "lora":
        assumptions.append("LoRA training (the default; --training-mode full for a full fine-tune).")
    about = recipe_notes(start, assessment.tier, overridden=changes.changes)
    assumptions += about.assumptions
    notes.warnings += about.warnings
    if assessment.mixed_models:
        notes.warnings.append("mixed GPU models: the smallest GPU's tier applies to all of them")
    if assessment.probe.cuda_visible_devices:
        assumptions.append(
            f"Only the GPUs in CUDA_VISIBLE_DEVICES="
            f"{assessment.probe.cuda_visible_devices}; the launch line carries it."
        )
    if assessment.vram_stated:
        assumptions.append(f"{assessment.per_gpu_vram_gb} GB per GPU as stated, not as probed.")
    return about
