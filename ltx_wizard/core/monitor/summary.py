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

from ltx_wizard.core.evaluation.summary_lines import evaluation_lines
from ltx_wizard.core.launch.script import copy_line
from ltx_wizard.core.monitor.run_config import read_config, value
from ltx_wizard.core.monitor.status import RunStatus
from ltx_wizard.core.io.run_meta import read_run_meta
from ltx_wizard.core.io.safe_fs import write_text
from ltx_wizard.core.base.units import gib

SUMMARY_NAME = "run-summary.md"


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
    text = f"{sum(known):.1f} minutes of training over {len(every)} launches (the trainer's figures"
    missing = len(every) - len(known)
    if missing:
        text += (f"; {missing} launch{'es' if missing > 1 else ''} stopped before printing "
                 "its time, not counted")
    return text + ")"


def _render_line(config: dict, checkpoint: Path) -> str:
    # ltx-pipelines' CLI (ltx_pipelines/utils/args.py basic_arg_parser, default_1_stage_arg_parser)
    prompts = value(config, "validation.prompts") or []
    prompt = prompts[0] if isinstance(prompts, list) and prompts else "<your prompt>"
    argv = ["uv", "run", "python", "-m", "ltx_pipelines.ti2vid_one_stage",
            "--checkpoint-path", str(value(config, "model.model_path", "<checkpoint>")),
            "--gemma-root", str(value(config, "model.text_encoder_path", "<gemma folder>")),
            "--lora", str(checkpoint), "1.0", "--prompt", str(prompt),
            "--output-path", str(checkpoint.parent.parent / "render.mp4")]
    return shlex.join(argv)


def _training_table(config: dict) -> list[str]:
    rows = [("Training mode", "model.training_mode"), ("Steps", "optimization.steps"),
            ("Batch size", "optimization.batch_size"),
            ("Gradient accumulation", "optimization.gradient_accumulation_steps"),
            ("Learning rate", "optimization.learning_rate"),
            ("Optimizer", "optimization.optimizer_type"),
            ("Gradient checkpointing", "optimization.enable_gradient_checkpointing"),
            ("Mixed precision", "acceleration.mixed_precision_mode"),
            ("Quantization", "acceleration.quantization"), ("LoRA rank", "lora.rank"),
            ("Seed", "seed")]
    lines = ["| Field | Value |", "|-------|-------|"]
    for label, key in rows:
        lines.append(f"| {label} | {str(value(config, key, '-')).replace('|', '/')} |")
    return lines


def render_summary(status: RunStatus) -> str:
    run, peak_gb = status.run_dir, status.peak_gb
    config = read_config(run / "config.yaml")
    meta = read_run_meta(run)
    final = status.checkpoints[0] if status.checkpoints else None
    first = status.first_loss
    last = status.recent_losses[-1] if status.recent_losses else None
    lines = [f"# {run.name}", ""]
    if final is not None:
        lines.append(f"**Final checkpoint:** `{final.path}` (step {final.step})")
    duration = _duration(status.train_minutes, status.earlier_minutes)
    lines += [f"**Steps:** {status.step if status.step is not None else '?'} of "
              f"{status.total or '?'}", f"**Duration:** {duration}",
              f"**Loss:** {f'{first[1]:.4f} at step {first[0]}' if first else '?'} → "
              f"{f'{last:.4f}' if last is not None else '?'} at the end"]
    if peak_gb is not None:
        lines.append(f"**Peak GPU memory (trainer's figure):** {gib(peak_gb, 2)}")
    lines += ["", "## What was trained", "",
              f"- Recipe: {meta.recipe or '-'}; GPUs: {meta.num_gpus or '?'} x {meta.nodes} node(s)"
              f"{' (simulated)' if status.simulated else ''}",
              f"- Model: `{value(config, 'model.model_path', '-')}`",
              f"- Text encoder: `{value(config, 'model.text_encoder_path', '-')}`",
              f"- Data: `{value(config, 'data.preprocessed_data_root', '-')}`", "",
              "## Training config", "", *_training_table(config), "",
              f"Full config: `{run / 'config.yaml'}`; the plan: `{run / 'plan.md'}`", "",
              "## Outputs", "", f"- Checkpoints: `{status.output_dir / 'checkpoints'}`",
              f"- Validation samples: `{status.output_dir / 'samples'}`",
              f"- W&B run: {status.wandb_url or '(W&B not enabled or not in the log)'}",
              f"- Training log: `{status.log}`", ""]
    lines += evaluation_lines(run)  # the post-training evaluation's renders, once it ran
    lines += _continue_section(run, final)
    if final is not None:
        lines += ["## Render with it", "", "From your LTX-2 checkout (ltx-pipelines):", "",
                  "```bash", _render_line(config, final.path), "```", ""]
    return "\n".join(lines)


def _continue_section(run: Path, final) -> list[str]:
    if final is None:
        return []
    return ["## How to continue training", "",
            "Raise `optimization.steps` in config.yaml, then set (the Monitor's resume does this "
            "after asking):", "", "```yaml", "model:",
            f"  load_checkpoint: {shlex.quote(str(final.path))}", "```", "",
            "The trainer restores optimizer, scheduler and step from the "
            "`training_state_step_*.pt` beside that file" + ("" if final.state else
            " (there is none here: weights only, steps count from 0: use a new output_dir)")
            + ". Then start it again:", "", "```bash", copy_line(run), "```", ""]


def ensure_summary(status: RunStatus) -> Path | None:
    """Once the run has finished: write `<run>/run-summary.md` unless it is there and newer than
    the log (a resumed and finished-again run gets a new one). Returns the path when written."""
    if status.state != "finished":
        return None
    path = status.run_dir / SUMMARY_NAME
    try:
        if path.stat().st_mtime >= status.log.stat().st_mtime:
            return None
    except OSError:
        pass
    return write_text(path, render_summary(status), root=status.run_dir)
