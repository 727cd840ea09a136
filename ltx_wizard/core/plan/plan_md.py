"""plan.md: the skill's plan sections in plain words, for the user to approve before anything heavy.

Sections: goal, mode, dataset, training config, hardware, sanity check + autotune, outputs,
assumptions, cost/time, and the config diff against the shipped file.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from ltx_wizard.core.base.records import record
from ltx_wizard.core.tuning.trial_config import TRIAL_STEPS
from ltx_wizard.core.inputs.recipes import show_value
from ltx_wizard.core.base.text_safety import clean_text
from ltx_wizard.core.gpu.tiers import Tier
from ltx_wizard.core.io.yaml_patch import get_dotted

# The rows of the training config table: (dotted key, label).
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
    ("model.model_path", "Checkpoint"),
    ("model.text_encoder_path", "Text encoder"),
    ("model.video_vae_path", "Video VAE"),
    ("model.audio_vae_path", "Audio VAE"),
    ("data.preprocessed_data_root", "Data root"),
    ("output_dir", "Output folder"),
)

# What is worth knowing of each tier beyond the levers (those come from the engine's rules).
_TIER_NOTE = {
    Tier.T32: "At 32 GB the quality levers often run out of memory; that is expected and the "
    "baseline still works.",
    Tier.T40_60: "No tested config exists for this range, so the low-VRAM file is the safe start.",
    Tier.T80: "On the 22B model, gradient checkpointing off usually runs out of memory: a win "
    "there is unlikely.",
    Tier.BELOW_MINIMUM: "Below the trainer's minimum even the baseline may run out of memory; a "
    "lever the measured headroom cannot hold is skipped, not run.",
}


@record
class PlanContent:
    run_name: str
    run_dir: str
    training_mode: str
    mode: str = "t2v"
    recipe: str = "t2v_lora"
    recipe_modes: str = ""  # what the recipe trains, from its strategy block
    applied: tuple[str, ...] = ()  # low-VRAM keys applied to the recipe, one line each
    skipped: tuple[str, ...] = ()  # low-VRAM keys the recipe lacks
    dataset_path: str
    dataset_name: str
    sample_count: int
    dataset_note: str | None = None
    video_only_note: str | None = None  # the video-only choice and the docs' note on LoRA targets
    config: dict[str, Any]  # the written config, as loaded
    base_config: str
    effective_batch: int
    num_gpus: int  # in all, over every node
    nodes: int = 1
    multinode_lines: tuple[str, ...] = ()  # core/launch/multinode.py plan_section, when nodes > 1
    gpu_lines: tuple[str, ...]
    tier: Tier
    per_gpu_vram_gb: int | None
    launch_line: str
    launch_style: str
    assumptions: tuple[str, ...] = ()
    risks: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    diff: str = ""
    host_lines: tuple[str, ...] = ()  # the GPU floor line, then host_limits.HostCheck.lines


def _fmt(value: Any) -> str:
    return show_value(value).replace("|", "\\|")  # a table cell: a pipe would end it


def config_table(config: Mapping[str, Any], effective_batch: int, num_gpus: int) -> list[str]:
    rows = ["| Setting | Value |", "|---|---|"]
    for key, label in TABLE_KEYS:
        value = get_dotted(config, key, _Missing)
        if value is _Missing:
            continue
        rows.append(f"| {label} | `{_fmt(value)}` |")
    rows.append(
        f"| Effective batch | {effective_batch} (batch x accumulation x {num_gpus} "
        f"GPU{'s' if num_gpus != 1 else ''}) |"
    )
    return rows


class _Missing:
    pass


def render_plan(c: PlanContent) -> str:
    # Paths and names are outside text: a newline or escape in one must not split a line (the
    # launch line is quoted with $'...' already, in launch.py).
    c = replace(c, **{
        "run_dir": clean_text(c.run_dir), "dataset_path": clean_text(c.dataset_path),
        "dataset_name": clean_text(c.dataset_name), "gpu_lines": tuple(map(clean_text, c.gpu_lines)),
        "warnings": tuple(map(clean_text, c.warnings)),
    })
    kind = "LoRA" if c.training_mode == "lora" else "full fine-tune"
    steps = get_dotted(c.config, "optimization.steps", None)
    lines = [f"# Plan: {c.run_name}", ""]
    if c.risks:
        lines += ["> **At your own risk:** " + " ".join(c.risks), ""]
    lines += _about_sections(c, kind, steps)
    lines += [
        *host_section(c.host_lines),
        *c.multinode_lines,
        "## Sanity check and autotune",
        *_trial_checks(),
        _autotune_paragraph(c.tier),
        "",
        "## Outputs",
        f"- `{c.run_dir}/config.yaml`: the config to train with",
        f"- `{c.run_dir}/outputs/`: checkpoints (`checkpoints/`) and validation videos (`samples/`)",
        f"- `{c.run_dir}/logs/`: trainer logs, and each trial's whole output (`trial-N.log`); "
        "`autotune.log`: the trials",
        f"- `{c.run_dir}/overfit/`: the few linked samples the trials run on, and each trial's "
        "config (`trial-N/`)",
        "",
        "## Assumptions",
        *[f"- {a}" for a in c.assumptions],
        *[f"- {r}" for r in c.risks],
        *[f"- Warning: {w}" for w in c.warnings],
        "",
        "## Cost and time",
        "- Training duration: measured after the sanity check (its step time x "
        f"{steps if steps is not None else 'the'} steps, plus validation passes).",
        f"- GPU time: that duration x {c.num_gpus} GPU{'s' if c.num_gpus != 1 else ''}; "
        "the sanity check and autotune add a few minutes each.",
        "",
        "## Config changes vs the shipped file",
        "",
        "```diff",
        c.diff.rstrip("\n") or "(none)",
        "```",
        "",
        "Nothing heavy (sanity check, autotune, training) starts before you approve this plan.",
        "",
    ]
    return "\n".join(lines)


def _about_sections(c: PlanContent, kind: str, steps: object) -> list[str]:
    """Goal, mode, dataset, training config and hardware: what will be trained, and where."""
    return [
        "## Goal",
        f"Train {_goal(c)} {kind} of LTX-2 on the dataset `{c.dataset_name}`, "
        + (f"for {steps} steps" if steps is not None else "for the base file's steps")
        + ", saving checkpoints and validation videos along the way.",
        "",
        "## Mode",
        f"{_mode_words(c)} (`{c.mode}`), {kind} (`model.training_mode: {c.training_mode}`).",
        *(["", c.video_only_note] if c.video_only_note else []),
        "",
        "## Dataset",
        f"`{c.dataset_path}`: {c.sample_count} preprocessed sample"
        f"{'s' if c.sample_count != 1 else ''}." + (f" {c.dataset_note}" if c.dataset_note else ""),
        "",
        "## Training config",
        f"`config.yaml` is the shipped `{c.base_config}` byte for byte, with only the lines in "
        "the diff below changed.",
        *_applied_lines(c),
        "",
        *config_table(c.config, c.effective_batch, c.num_gpus),
        "",
        "## Hardware",
        *([f"- {c.nodes} nodes, each with these GPUs:"] if c.nodes > 1 else []),
        *[f"- GPU {line}" for line in c.gpu_lines],
        f"- Tier: **{c.tier.display_name}**"
        + (f" ({c.per_gpu_vram_gb} GB per GPU)" if c.per_gpu_vram_gb is not None else ""),
        f"- Launch ({_style_words(c.launch_style, c.num_gpus, c.nodes)}):",
        "",
        "```sh",
        c.launch_line,
        "```",
        "",
    ]


# mirrors ltx_trainer/trainer.py LtxvTrainer.train: with --disable-progress-bars the step line
# (and so the loss) is logged only when global_step % 20 == 0
TRAINER_LOG_EVERY = 20


def _autotune_paragraph(tier: Tier) -> str:
    """The trials to come, in the words the engine's own rules give (autotune/rules_text.py)."""
    from ltx_wizard.core.tuning import rules_text  # the engine's rules: loaded only to render

    return (f"Autotune then goes on with at most {rules_text.MAX_TRIALS} such trials in all (the "
            "baseline included), each changing one setting from the best so far. "
            f"{rules_text.keep_rules()} The loss is never a criterion. "
            f"{rules_text.levers_sentence(tier)} {_TIER_NOTE.get(tier, '')} Each trial's step "
            "time and peak memory go to `autotune.log`; the winner is patched into `config.yaml`.")


def _trial_checks() -> list[str]:
    """What the trials and the confirmation prove, limited to what the wizard reads from them."""
    logged = list(range(TRAINER_LOG_EVERY, TRIAL_STEPS + 1, TRAINER_LOG_EVERY))
    timing = (f"Step time is measured between the step {logged[0]} and step {logged[-1]} lines; "
              if len(logged) >= 2 else "")
    return [
        f"First a sanity check, the baseline trial: a {TRIAL_STEPS}-step run of this config on a "
        "few samples linked from the data root into `overfit/` (one full batch per GPU, as the "
        "trainer's loader needs), with validation and the text encoder off so that it measures "
        "training only. It shows that training starts and runs to the end and that the loss is "
        f"finite where the trainer prints it (every {TRAINER_LOG_EVERY} steps: at steps "
        f"{' and '.join(map(str, logged)) or 'none'} only). {timing}peak memory is sampled from "
        "the GPU while the trial runs. The winner then gets one confirmation run with this "
        "config's own validation (its `video_dims`, one prompt, a few inference steps), proving "
        "that validation fits too. Each run's whole output is kept in `logs/trial-N.log` (and "
        "`logs/confirm-N.log`); its checkpoints are deleted once it is recorded.",
        "",
    ]


def video_only_note(change: tuple[str, object] | None, base_name: str, config) -> str | None:
    """plan.md's words for the video-only choice, with the trainer docs' note on LoRA targets."""
    if change is None:
        return None
    key, value = change
    targets = get_dotted(config, "lora.target_modules", None)
    shown = "null" if value is None else str(value).lower()
    text = (f"Video only: `{key}: {shown}` (the one line changed for it), so the trainer reads no "
            f"audio latents and trains no audio.")
    if targets:
        text += (f" LoRA targets stay as shipped in {base_name} "
                 f"(`{', '.join(str(t) for t in targets)}`). The trainer's "
                 "docs/configuration-reference.md (Understanding Target Modules) advises the video "
                 "attention layers (`attn1.*`, `attn2.*`) for video-only training: short patterns "
                 "such as `to_k` also match the audio and audio-video attention modules. Edit "
                 "`lora.target_modules` in config.yaml to follow it.")
    return text


def _goal(c: PlanContent) -> str:
    if c.recipe == "t2v_lora":
        return "a text-to-video"
    return f"a `{c.recipe}`"


def _mode_words(c: PlanContent) -> str:
    if c.recipe == "t2v_lora":
        return "Text-to-video"
    return f"Recipe `{c.recipe}`" + (f": {c.recipe_modes}" if c.recipe_modes else "")


def _applied_lines(c: PlanContent) -> list[str]:
    """The low-VRAM keys applied to a recipe without a low-VRAM twin (and those it lacks)."""
    out: list[str] = []
    if c.applied:
        out += ["", "Low-VRAM keys applied to the recipe (each in the diff below):", ""]
        out += [f"- {line}" for line in c.applied]
    if c.skipped:
        out += ["", "Low-VRAM keys not applied:", ""]
        out += [f"- {line}" for line in c.skipped]
    return out


def host_section(lines: tuple[str, ...]) -> list[str]:
    """GPU floor, host RAM and disk the run needs against what this machine has."""
    if not lines:
        return []
    return ["## Memory and disk", *[line if line.startswith("  ") else f"- {line}"
                                         for line in lines], ""]


def _style_words(style: str, num_gpus: int, nodes: int = 1) -> str:
    where = f" on {nodes} nodes, through Slurm" if nodes > 1 else ""
    if style == "fsdp":
        return f"FSDP across {num_gpus} GPUs{where}"
    if style == "ddp":
        return f"DDP across {num_gpus} GPUs{where}"
    return "one GPU"
