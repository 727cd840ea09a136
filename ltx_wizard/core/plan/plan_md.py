"""plan.md, rendered from the run's records: the plan (plan.json), autotune's result (autotune.json,
once it has ended) and the preprocessing state (preprocess.json, for clips). The one renderer: a
later phase writes its record and plan.md is rendered again from all of them; no text is made by
editing another text.

Sections: goal, mode, dataset, training config, hardware, memory and disk, sanity check and
autotune (with its results once tuned), outputs, assumptions, cost and time, and the config diff
against the shipped file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from ltx_wizard.core.base.text_safety import clean_text
from ltx_wizard.core.gpu.tiers import Tier
from ltx_wizard.core.inputs.recipes import show_value
from ltx_wizard.core.io.trainer_config import trainer_config, value_at, written_keys
from ltx_wizard.core.io.yaml_patch import load_yaml, unified_diff
from ltx_wizard.core.plan.plan_words import (
    autotune_paragraph,
    dataset_lines,
    goal_words,
    mode_words,
    results_lines,
    style_words,
    trial_checks,
)

if TYPE_CHECKING:  # loaded only by the readers that have these records
    from ltx_wizard.core.plan.record import PlanRecord
    from ltx_wizard.core.preprocess.preprocess_state import PreprocessState
    from ltx_wizard.core.tuning.tune_record import TuneRecord

# The rows of the training config table: (the view's key, label); a row shows where the file sets
# the key (null included), with the view's typed value.
TABLE_KEYS = (
    ("model.training_mode", "Training mode"),
    ("lora.rank", "LoRA rank"),
    ("lora.alpha", "LoRA alpha"),
    ("optimization.steps", "Steps"),
    ("optimization.learning_rate", "Learning rate"),
    ("optimization.batch_size", "Batch size per GPU"),
    ("optimization.gradient_accumulation_steps", "Gradient accumulation"),
    ("optimization.optimizer_type", "Optimizer"),
    ("optimization.enable_gradient_checkpointing", "Gradient checkpointing"),
    ("acceleration.mixed_precision_mode", "Mixed precision"),
    ("acceleration.quantization", "Quantization"),
    ("acceleration.load_text_encoder_in_8bit", "Text encoder in 8-bit"),
    ("acceleration.offload_optimizer_during_validation", "Offload optimizer in validation"),
    ("validation.video_dims", "Validation video (W, H, frames)"),
    ("validation.interval", "Validation every (steps)"),
    ("checkpoints.interval", "Checkpoint every (steps)"),
    ("checkpoints.keep_last_n", "Checkpoints kept (keep_last_n)"),
    ("checkpoints.save_training_state", "Training state saved"),
    ("model.model_path", "Checkpoint"),
    ("model.text_encoder_path", "Text encoder"),
    ("model.video_vae_path", "Video VAE"),
    ("model.audio_vae_path", "Audio VAE"),
    ("data.preprocessed_data_root", "Data root"),
    ("output_dir", "Output folder"),
)


def _fmt(value: Any) -> str:
    return show_value(value).replace("|", "\\|")  # a table cell: a pipe would end it


def _int(value: object, default: int = 1) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else default


def effective_batch(config: Mapping[str, Any], num_gpus: int) -> int:
    """batch x accumulation x every GPU, as the config now says."""
    keys = trainer_config(config).optimization
    return _int(keys.batch_size) * _int(keys.gradient_accumulation_steps) * num_gpus


def config_table(config: Mapping[str, Any], num_gpus: int) -> list[str]:
    rows = ["| Setting | Value |", "|---|---|"]
    keys, written = trainer_config(config), written_keys(config)
    for key, label in TABLE_KEYS:
        if key in written:
            rows.append(f"| {label} | `{_fmt(value_at(keys, key))}` |")
    gpus = f"{num_gpus} GPU{'s' if num_gpus != 1 else ''}"
    rows.append(f"| Effective batch | {effective_batch(config, num_gpus)} (batch x accumulation x {gpus}) |")
    return rows


def render_plan(
    rec: PlanRecord, tuned: TuneRecord | None = None, preprocess: PreprocessState | None = None
) -> str:
    """plan.md from the records; `tuned` and `preprocess` as far as those phases have got."""
    text = tuned.config_text if tuned is not None else rec.config_text
    config = load_yaml(text)
    lines = [f"# Plan: {clean_text(rec.run_name)}", ""]
    if rec.risks:
        lines += ["> **At your own risk:** " + " ".join(rec.risks), ""]
    lines += _about(rec, config, tuned, preprocess)
    lines += _kept(rec, config)
    lines += _hardware(rec)
    lines += _host(rec.host_lines) + list(rec.multinode_lines)
    lines += [
        "## Sanity check and autotune",
        *trial_checks(rec, config, tuned),
        "",
        autotune_paragraph(Tier(rec.tier)),
        *_no_batch(rec),
        "",
    ]
    if tuned is not None:
        lines += ["## Autotune results", *results_lines(tuned), ""]
    lines += _outputs(rec)
    lines += _notes(rec, tuned)
    lines += _cost(rec, config, tuned)
    lines += _compare_cost(rec, config, tuned, preprocess)
    diff = unified_diff(rec.base_text, text, rec.base_config, f"{rec.run_dir}/config.yaml")
    lines += [
        "## Config changes vs the shipped file",
        "",
        "```diff",
        diff.rstrip("\n") or "(none)",
        "```",
        "",
    ]
    if tuned is None:
        lines += ["Nothing heavy (sanity check, autotune, training) starts before you approve this plan.", ""]
    return "\n".join(lines)


def _about(
    rec: PlanRecord, config: Mapping[str, Any], tuned: TuneRecord | None, preprocess: PreprocessState | None
) -> list[str]:
    kind = "LoRA" if rec.training_mode == "lora" else "full fine-tune"
    return [
        "## Goal",
        goal_words(rec, kind, config),
        "",
        "## Mode",
        f"{mode_words(rec)} (`{rec.run_mode}`), {kind} (`model.training_mode: {rec.training_mode}`).",
        *(["", rec.video_only_note] if rec.video_only_note else []),
        "",
        "## Dataset",
        *dataset_lines(rec.data, preprocess),
        "",
        "## Training config",
        _config_sentence(rec, tuned),
        *_applied(rec),
        "",
        *config_table(config, rec.schedule.num_gpus),
        "",
    ]


def _kept(rec: PlanRecord, config: Mapping[str, Any]) -> list[str]:
    """How many checkpoints stay for comparison, at which steps, their size (checkpoint_keep.py)."""
    if rec.keep is None:  # planned before the wizard kept checkpoints for comparison
        return []
    from ltx_wizard.core.plan.checkpoint_keep import keep_lines

    return ["## Checkpoints kept for comparison", *keep_lines(config, rec.keep), ""]


def _no_batch(rec: PlanRecord) -> list[str]:
    from ltx_wizard.core.plan.trial_sample_count import batch_change_refusal

    refusal = batch_change_refusal(rec)
    return ["", f"A larger batch cannot be tried on this run: {refusal}."] if refusal else []


def _config_sentence(rec: PlanRecord, tuned: TuneRecord | None) -> str:
    if tuned is None:
        return (
            f"`config.yaml` is the shipped `{rec.base_config}` byte for byte, with only the "
            "lines in the diff below changed."
        )
    if tuned.changed:
        return (
            f"`config.yaml` is the shipped `{rec.base_config}` with the lines in the diff below "
            "changed: the plan's (paths and tier rules) and autotune's winner, each of "
            "autotune's marked `# ltx-wizard: autotune` at the end of its line. The table shows "
            "the settings after autotune."
        )
    return (
        f"`config.yaml` is the shipped `{rec.base_config}` with the plan's lines in the diff "
        "below changed (paths and tier rules); autotune kept the planned settings, as the "
        "table shows."
    )


def _applied(rec: PlanRecord) -> list[str]:
    """The low-VRAM keys applied to a recipe without a low-VRAM twin (and those it lacks)."""
    out: list[str] = []
    if rec.applied:
        out += ["", "Low-VRAM keys applied to the recipe (each in the diff below):", ""]
        out += [f"- {line}" for line in rec.applied]
    if rec.skipped:
        out += ["", "Low-VRAM keys not applied:", ""]
        out += [f"- {line}" for line in rec.skipped]
    return out


def _hardware(rec: PlanRecord) -> list[str]:
    s = rec.schedule
    return [
        "## Hardware",
        *([f"- {s.nodes} nodes, each with these GPUs:"] if s.nodes > 1 else []),
        *[f"- GPU {clean_text(line)}" for line in rec.gpu_lines],
        f"- Tier: **{Tier(rec.tier).display_name}**"
        + (f" ({rec.per_gpu_vram_gb} GB per GPU)" if rec.per_gpu_vram_gb is not None else ""),
        *(
            [f"- Simulated GPUs (`{rec.simulate}`): launch.sh runs the simulated trainer"]
            if rec.simulate
            else []
        ),
        f"- Launch ({style_words(rec.launch_style, s.num_gpus, s.nodes)}):",
        "",
        "```sh",
        rec.launch_line,
        "```",
        "",
    ]


def _host(lines: tuple[str, ...]) -> list[str]:
    """GPU floor, host RAM and disk the run needs against what this machine has."""
    if not lines:
        return []
    return ["## Memory and disk", *[line if line.startswith("  ") else f"- {line}" for line in lines], ""]


def _outputs(rec: PlanRecord) -> list[str]:
    from ltx_wizard.core.plan.run_files import written_lines

    return ["## Outputs", *written_lines(rec), ""]


def _notes(rec: PlanRecord, tuned: TuneRecord | None) -> list[str]:
    lines = ["## Assumptions", *[f"- {a}" for a in rec.assumptions]]
    if tuned is not None and tuned.steps:
        (old, new), (before, after) = tuned.steps, tuned.effective
        lines.append(
            f"- After autotune: batch x accumulation {before} -> {after} per GPU (an "
            f"allowed batch change), so optimization.steps {old} -> {new}."
        )
    lines += [f"- {r}" for r in rec.risks]
    lines += [f"- Warning: {clean_text(w)}" for w in rec.warnings]
    return lines + [""]


def _cost(rec: PlanRecord, config: Mapping[str, Any], tuned: TuneRecord | None) -> list[str]:
    gpus = rec.schedule.num_gpus
    gpu_words = f"{gpus} GPU{'s' if gpus != 1 else ''}"
    if tuned is None:
        steps = trainer_config(config).optimization.steps
        return [
            "## Cost and time",
            "- Training duration: not measured yet; autotune estimates it from the step time "
            f"its trials measure x {steps if steps is not None else 'the'} steps, plus "
            "validation passes, checkpoint saves and the model load.",
            f"- GPU time: that duration x {gpu_words}; the sanity check and autotune add a few minutes each.",
            "",
        ]
    lines = (
        tuned.duration.lines()
        if tuned.duration is not None
        else ["Estimated duration: not measured (no trial measured a step time)."]
    )
    return ["## Cost and time", "", *lines, f"- GPU time: that duration x {gpu_words}.", ""]


def _compare_cost(
    rec: PlanRecord, config: Mapping[str, Any], tuned: TuneRecord | None, preprocess: PreprocessState | None
) -> list[str]:
    """What comparing the kept checkpoints costs (compare_cost.py), once autotune priced a step."""
    if rec.keep is None or rec.training_mode != "lora":  # planned before issue 44, or no LoRA to compare
        return []
    duration = tuned.duration if tuned is not None else None
    if duration is None:
        return [
            "Comparing the kept checkpoints (held-out loss and tournament renders): priced once "
            "autotune has measured the step time.",
            "",
        ]
    from ltx_wizard.core.plan.compare_cost import compare_cost
    from ltx_wizard.core.plan.compare_cost_words import compare_cost_lines

    cost = compare_cost(config, duration, _held_out_count(preprocess), rec.schedule.num_gpus)
    return [*compare_cost_lines(cost, duration.steps, duration.step_s, rec.schedule.num_gpus), ""]


def _held_out_count(preprocess: PreprocessState | None) -> int:
    """The held-out clips whose latents the loss reads: those encoded, else those to encode."""
    held = preprocess.held_out if preprocess is not None else None
    if held is None or held.file is None:
        return 0
    return len(held.encoded) if held.done else len(held.samples)
