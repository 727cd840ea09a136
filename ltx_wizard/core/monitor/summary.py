"""`run-summary.md`: the landing page of a finished run (what, on what, where, how to go on).

Its content follows the train-model skill's run summary (phases/launch-and-monitor.md, "Writing
run-summary.md"): what was trained and on what, the final checkpoint and step, duration, the loss
at start and end, and the commands to continue training and to render with the result. It is
written into the run folder beside plan.md (the trainer's output_dir stays the trainer's), once,
through a temp file and a rename.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from ltx_wizard.core.compare.compare_view import Compared, read_shown, summary_lines
from ltx_wizard.core.io.run_folder import COMPARE_PICK, COMPARE_RECORD, CONFIG, PLAN_MD, RUN_SUMMARY
from ltx_wizard.core.evaluation.render_line import render_lines
from ltx_wizard.core.evaluation.summary_lines import evaluation_lines
from ltx_wizard.core.launch.script import copy_line
from ltx_wizard.core.monitor.run_config import ConfigView, config_view, read_config
from ltx_wizard.core.monitor.status import RunStatus
from ltx_wizard.core.monitor.saved_checkpoints import SavedCheckpoint, restores
from ltx_wizard.core.io.run_meta import read_run_meta
from ltx_wizard.core.io.safe_fs import write_text
from ltx_wizard.core.base.units import gib

SUMMARY_NAME = RUN_SUMMARY.rel


def _duration(minutes: float | None, earlier: tuple[float | None, ...] = ()) -> str:
    """The trainer's own training time, summed over every launch a resume added."""
    if not earlier:
        if minutes is None:
            return "unknown (the trainer's statistics were not in the log)"
        return f"{minutes:.1f} minutes of training (the trainer's own figure)"
    every = (*earlier, minutes)
    known = [m for m in every if m is not None]
    if not known:
        return f"unknown over {len(every)} launches (the trainer's statistics were not in the log)"
    missing = len(every) - len(known)
    if not missing:
        return f"{sum(known):.1f} minutes of training over {len(every)} launches (the trainer's figures)"
    # a launch stopped before its statistics: the sum is the others' alone, and says so
    counted = "the last" if len(known) == 1 and minutes is not None else f"{len(known)}"
    return (
        f"{sum(known):.1f} minutes of training in {counted} of {len(every)} launches (the trainer's "
        f"figure{'s' if len(known) > 1 else ''}); {missing} launch{'es' if missing > 1 else ''} stopped "
        "before printing its time, not counted"
    )


def _training_table(view: ConfigView) -> list[str]:
    k = view.keys
    rows: list[tuple[str, str, object]] = [
        ("Training mode", "model.training_mode", k.model.training_mode),
        ("Steps", "optimization.steps", k.optimization.steps),
        ("Batch size", "optimization.batch_size", k.optimization.batch_size),
        (
            "Gradient accumulation",
            "optimization.gradient_accumulation_steps",
            k.optimization.gradient_accumulation_steps,
        ),
        ("Learning rate", "optimization.learning_rate", k.optimization.learning_rate),
        ("Optimizer", "optimization.optimizer_type", k.optimization.optimizer_type),
        (
            "Gradient checkpointing",
            "optimization.enable_gradient_checkpointing",
            k.optimization.enable_gradient_checkpointing,
        ),
        ("Mixed precision", "acceleration.mixed_precision_mode", k.acceleration.mixed_precision_mode),
        ("Quantization", "acceleration.quantization", k.acceleration.quantization),
        ("LoRA rank", "lora.rank", k.lora.rank),
        ("Seed", "seed", k.seed),
    ]
    lines = ["| Field | Value |", "|-------|-------|"]
    for label, key, got in rows:
        lines.append(f"| {label} | {_shown(view, key, got).replace('|', '/')} |")
    return lines


def _shown(view: ConfigView, key: str, got: object) -> str:
    """A setting as the summary shows it: `-` when unset, `?` when its value has the wrong type."""
    if key in view.refused or key.split(".")[0] in view.refused:
        return "?"
    return "-" if got is None else str(got)


def _loss_line(status: RunStatus) -> str:
    first = status.first_loss
    start = f"{first[1]:.4f} at step {first[0]}" if first else "?"
    if status.nan:
        finite = status.last_finite
        return f"**Loss:** {start} → NaN from step {status.nan_step} to the end" + (
            f" (last finite: {finite[1]:.4f} at step {finite[0]})" if finite else ""
        )
    last = status.recent_losses[-1] if status.recent_losses else None
    return f"**Loss:** {start} → {f'{last:.4f}' if last is not None else '?'} at the end"


def _checkpoint_lines(status: RunStatus, usable: SavedCheckpoint | None) -> list[str]:
    latest = status.checkpoints[0] if status.checkpoints else None
    if latest is None:
        return []
    if not status.nan or usable is latest:
        return [f"**Final checkpoint:** `{latest.path}` (step {latest.step})"]
    lines = [
        f"**Final checkpoint:** `{latest.path}` (step {latest.step}), saved after the loss "
        "turned NaN: its weights are NaN, do not use it"
    ]
    if usable is not None:
        lines.append(
            f"**Last checkpoint saved while the loss was finite:** `{usable.path}` (step {usable.step})"
        )
    else:
        lines.append("**No checkpoint was saved while the loss was finite.**")
    return lines


def render_summary(status: RunStatus) -> str:
    run, peak_gb = status.run_dir, status.peak_gb
    config = read_config(CONFIG.path(run))
    view = config_view(config)
    meta = read_run_meta(run)
    usable = status.usable_checkpoint
    lines = [f"# {run.name}", "", *_checkpoint_lines(status, usable)]
    duration = _duration(status.train_minutes, status.earlier_minutes)
    lines += [
        f"**Steps:** {status.step if status.step is not None else '?'} of {status.total or '?'}",
        f"**Duration:** {duration}",
        _loss_line(status),
    ]
    if peak_gb is not None:
        lines.append(f"**Peak GPU memory (trainer's figure):** {gib(peak_gb, 2)}")
    lines += [
        "",
        "## What was trained",
        "",
        f"- Recipe: {meta.recipe or '-'}; GPUs: {meta.num_gpus or '?'} x {meta.nodes} node(s)"
        f"{' (simulated)' if status.simulated else ''}",
        f"- Model: `{_shown(view, 'model.model_path', view.keys.model.model_path)}`",
        f"- Text encoder: `{_shown(view, 'model.text_encoder_path', view.keys.model.text_encoder_path)}`",
        f"- Data: `{_shown(view, 'data.preprocessed_data_root', view.keys.data.preprocessed_data_root)}`"
        f"{_planned_data(run)}",
        "",
        "## Training config",
        "",
        *_training_table(view),
        "",
        f"Full config: `{CONFIG.path(run)}`; the plan: `{PLAN_MD.path(run)}`",
        "",
        "## Outputs",
        "",
        f"- Checkpoints: `{status.output_dir / 'checkpoints'}`",
        f"- Validation samples: `{status.output_dir / 'samples'}`",
        f"- W&B run: {status.wandb_url or '(W&B not enabled or not in the log)'}",
        f"- Training log: `{status.log}`",
        "",
    ]
    lines += evaluation_lines(run)  # the post-training evaluation's renders, once it ran
    compared = read_shown(run)
    if isinstance(compared, str):  # a damaged record: said, and the render line takes the final one
        lines += ["## Which checkpoint (compare)", "", compared, ""]
        compared = None
    elif compared is not None:  # which checkpoint, from compare.json and the pick
        lines += summary_lines(compared)
    lines += _continue_section(status, config, usable)
    chosen = _render_checkpoint(status, compared)
    if chosen is not None:  # the mode's own entry point, with its inputs (evaluation/render_line.py)
        lines += ["## Render with it", "", *render_lines(run, config, chosen[0], chosen=chosen[1])]
    return "\n".join(lines)


def _render_checkpoint(status: RunStatus, compared: Compared | None) -> tuple[Path, str] | None:
    """The checkpoint "Render with it" uses and why: the user's pick (pick.json) while its file is
    there, else the final one (after a NaN loss, the last one saved while it was finite)."""
    usable = status.usable_checkpoint
    pick = compared.pick if compared is not None else None
    if pick is not None and Path(pick.path).is_file():
        return Path(pick.path), f"the checkpoint you picked, step {pick.step:,} (picked {pick.time})"
    if usable is None:
        return None
    latest = status.checkpoints[0] if status.checkpoints else None
    final = (
        "the final checkpoint" if usable is latest else "the last checkpoint saved while the loss was finite"
    )
    if pick is not None:
        why = f"the picked step {pick.step:,} is no longer on disk"
    elif compared is not None:
        why = "no checkpoint picked yet: `ltx-wizard pick RUN STEP` picks one"
    else:
        why = "no checkpoint picked"
    return usable.path, f"{final}, step {usable.step:,} ({why})"


def _planned_data(run: Path) -> str:
    """What the plan counted of the data (plan.json), as plan.md says it."""
    from ltx_wizard.core.base.errors import WizardError
    from ltx_wizard.core.plan.record import read_record

    try:
        rec = read_record(run)
    except (WizardError, OSError):
        return ""
    if rec is None:
        return ""
    data = rec.data
    if data.from_clips:
        return f" ({data.listed} clips listed in `{data.source}`, {data.samples} to train on, as planned)"
    return f" ({data.samples} preprocessed samples, as planned)"


def _continue_section(status: RunStatus, config: dict[str, Any], usable: SavedCheckpoint | None) -> list[str]:
    if usable is None:
        return []
    run = status.run_dir
    if usable.state is None:
        state = (
            f"There is no `training_state_step_{usable.step:05d}.pt` beside it: the weights "
            "load and the trainer counts steps from 0 again (the Monitor's resume then "
            "writes to a new output_dir, so no checkpoint is overwritten)."
        )
    else:
        state = (
            f"The trainer finds `{usable.state.name}` beside it and goes on from step "
            f"{usable.step}. " + restores(run, config, status.output_dir)
        )
    if status.nan:
        how = (
            "Fix what made the loss NaN first (Monitor, f shows the proposed change), then "
            "resume from the last finite checkpoint: the Monitor's resume (r) picks it."
        )
    else:
        how = (
            "Raise `optimization.steps` in config.yaml, then resume: `ltx-wizard --run-dir "
            f"{run}` opens the Monitor, where r plans it and shows the change before writing."
        )
    return [
        "## How to continue training",
        "",
        how,
        "",
        "The resume sets (and keeps the old "
        "config as `config.before-resume.yaml`, numbered when one exists):",
        "",
        "```yaml",
        "model:",
        f"  load_checkpoint: {shlex.quote(str(usable.path))}",
        "```",
        "",
        state,
        "",
        "Then it asks before starting the run again, or start it yourself:",
        "",
        "```bash",
        copy_line(run),
        "```",
        "",
    ]


def ensure_summary(status: RunStatus) -> Path | None:
    """Once the run has finished: write `<run>/run-summary.md` unless it is there and newer than
    the log, compare.json and the pick (a resumed and finished-again run, a comparison or a pick
    made since gets a new one). Returns the path when written."""
    if status.state != "finished":
        return None
    path = status.run_dir / SUMMARY_NAME
    sources = (status.log, COMPARE_RECORD.path(status.run_dir), COMPARE_PICK.path(status.run_dir))
    try:
        written = path.stat().st_mtime
        if all(written >= source.stat().st_mtime for source in sources if source.exists()):
            return None
    except OSError:
        pass
    return write_text(path, render_summary(status), root=status.run_dir)
