"""plan.md's sentences, each drawn from the records it is given (plan_md.py lays them out)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from ltx_wizard.core.base.text_safety import clean_text
from ltx_wizard.core.gpu.tiers import Tier
from ltx_wizard.core.io.trainer_config import trainer_config
from ltx_wizard.core.tuning.trial_config import TRIAL_STEPS

if TYPE_CHECKING:
    from ltx_wizard.core.plan.record import DataRecord, PlanRecord
    from ltx_wizard.core.preprocess.preprocess_state import PreprocessState
    from ltx_wizard.core.tuning.tune_record import TuneRecord

# mirrors ltx_trainer/trainer.py LtxvTrainer.train: with --disable-progress-bars the step line
# (and so the loss) is logged on every micro-step whose global_step % 20 == 0
TRAINER_LOG_EVERY = 20

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


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def saves_words(config: Mapping[str, Any]) -> str:
    """What the run leaves along the way, as the config says (trainer.py LtxvTrainer.train:
    a checkpoint every checkpoints.interval steps and at the end; validation videos every
    validation.interval steps when there are samples)."""
    keys = trainer_config(config)
    every = keys.checkpoints.interval
    saves = (
        f"saving a checkpoint every {every} steps and at the end"
        if every and every > 0
        else "saving the weights at the end"
    )
    interval = keys.validation.interval
    samples = keys.validation.sample_list()
    if interval and interval > 0 and samples:
        return f"{saves}, and validation videos every {interval} steps"
    return f"{saves}, without validation videos"


def goal_words(rec: PlanRecord, kind: str, config: Mapping[str, Any]) -> str:
    steps = trainer_config(config).optimization.steps
    goal = "a text-to-video" if rec.recipe == "t2v_lora" else f"a `{rec.recipe}`"
    length = f"for {steps} steps" if steps is not None else "for the base file's steps"
    return (
        f"Train {goal} {kind} of LTX-2 on the dataset `{clean_text(rec.data.name)}`, {length}, "
        f"{saves_words(config)}."
    )


def mode_words(rec: PlanRecord) -> str:
    if rec.recipe == "t2v_lora":
        return "Text-to-video"
    return f"Recipe `{rec.recipe}`" + (f": {rec.recipe_modes}" if rec.recipe_modes else "")


def data_words(data: DataRecord) -> str:
    """The Summary screen's short form of the Dataset section (the same counts)."""
    if not data.from_clips:
        return _plural(data.samples, "preprocessed sample")
    ready = "preprocessed, reused" if data.reused else "preprocessed after you approve"
    return f"{_plural(data.listed or 0, 'clip')} listed, {data.samples} to train on ({ready})"


def dataset_lines(data: DataRecord, state: PreprocessState | None) -> list[str]:
    """Where the data is and how many samples the trainer trains on, as far as it has got."""
    folders = ", ".join(f + "/" for f in data.folders)
    reads = f"Each sample is a file in every folder the config reads: {folders}."
    root = clean_text(str(data.root))
    if not data.from_clips:
        return [f"`{root}`: {_plural(data.samples, 'preprocessed sample')}. {reads}"]
    source = clean_text(str(data.source))
    head = (
        f"`{source}`: {_plural(data.listed or 0, 'clip')} listed; the trainer will train on "
        f"{data.samples} of them at bucket {data.bucket}."
    )
    lines = [head, *[f"- {clean_text(line)}" for line in data.clip_lines]]
    if data.unchecked:
        lines.append(f"- Not checked: {clean_text(data.unchecked)}.")
    lines.append("")
    if data.reused:
        lines.append(f"Already preprocessed: `{root}` was verified at plan time and is reused. {reads}")
    elif state is not None and state.full_done:
        lines.append(f"Preprocessed into `{root}`: {_plural(data.samples, 'sample')}. {reads}")
    elif state is not None and state.one_sample_done:
        lines.append(
            f"One sample is preprocessed for autotune (`overfit/.precomputed`); every "
            f"clip is preprocessed into `{root}` next, before training. {reads}"
        )
    else:
        lines.append(
            f"Nothing is preprocessed yet: after you approve, one sample goes into "
            f"`overfit/.precomputed` for autotune, then every clip into `{root}`. {reads}"
        )
    return lines + _held_out(state)


def _held_out(state: PreprocessState | None) -> list[str]:
    """The held-out clips' own latents (core/preprocess/held_out.py), from preprocess.json."""
    from ltx_wizard.core.preprocess.held_out import held_out_words

    said = held_out_words(state.held_out) if state is not None else None
    return ["", clean_text(said)] if said else []


def style_words(style: str, num_gpus: int, nodes: int = 1) -> str:
    where = f" on {nodes} nodes, through Slurm" if nodes > 1 else ""
    if style == "fsdp":
        return f"FSDP across {num_gpus} GPUs{where}"
    if style == "ddp":
        return f"DDP across {num_gpus} GPUs{where}"
    return "one GPU"


def autotune_paragraph(tier: Tier) -> str:
    """The trials to come, in the words the engine's own rules give (tuning/rules_text.py)."""
    from ltx_wizard.core.tuning import rules_text  # the engine's rules: loaded only to render

    return (
        f"Autotune then goes on with at most {rules_text.MAX_TRIALS} such trials in all (the "
        "baseline included), each changing one setting from the best so far. "
        f"{rules_text.keep_rules()} The loss is never a criterion. "
        f"{rules_text.levers_sentence(tier)} {_TIER_NOTE.get(tier, '')} Each trial's step "
        "time and peak memory go to `autotune.log`; the winner is patched into `config.yaml`."
    )


def logged_steps(accumulation: int) -> str:
    """Where a trial's loss is printed: trainer.py logs the step line on every micro-step whose
    global_step is a multiple of 20, so under accumulation k each such step prints k lines and
    step 0 prints k - 1 before the first optimizer step."""
    logged = list(range(TRAINER_LOG_EVERY, TRIAL_STEPS + 1, TRAINER_LOG_EVERY))
    steps = " and ".join(map(str, logged)) or "none"
    if accumulation <= 1:
        return f"at steps {steps}"
    return (
        f"at steps {steps}, {accumulation} lines each under gradient accumulation "
        f"{accumulation}, and step 0 before the first optimizer step"
    )


def trial_checks(rec: PlanRecord, config: Mapping[str, Any], tuned: TuneRecord | None = None) -> list[str]:
    """The sanity-check paragraph (trial_words.py), read from autotune's record once it ended."""
    from ltx_wizard.core.plan.trial_words import trial_checks as paragraph

    accumulation = trainer_config(config).optimization.gradient_accumulation_steps or 1
    return paragraph(rec, config, logged_steps(accumulation), tuned.summary if tuned is not None else None)


def _cell(text: str) -> str:
    return clean_text(text).replace("|", "\\|")


def results_lines(tuned: TuneRecord) -> list[str]:
    """Every trial, the confirmations, why autotune stopped and what it patched."""
    from ltx_wizard.core.tuning.result_text import (
        confirmation_line,
        outcome_label,
        peak_text,
        step_text,
    )

    s = tuned.summary
    rows = ["", "| # | Change | Outcome | s/step | Peak | Reason |", "|---|---|---|---|---|---|"]
    for r in s.trials:
        kept = " (kept)" if r.kept else ""
        rows.append(
            f"| {r.index} | {_cell(r.change)} | {outcome_label(r.outcome)}{kept} | "
            f"{step_text(r)} | {peak_text(r)} | {_cell(r.reason) or '—'} |"
        )
    rows += ["", *[f"- {_cell(confirmation_line(c))}" for c in s.confirmations]]
    rows.append(f"- Stopped: {_cell(s.stop_reason)}")
    win = next((r for r in s.trials if r.index == s.winner), None)
    rows.append(
        f"- Winner: trial {win.index} ({_cell(win.change)}), patched into config.yaml"
        if win and s.config_patched
        else "- No change was patched into config.yaml."
    )
    if tuned.steps:
        (old, new), (before, after) = tuned.steps, tuned.effective
        rows.append(
            f"- Batch change allowed: batch x accumulation {before} -> {after} samples "
            f"per step per GPU, so `optimization.steps` {old} -> {new} keeps the samples "
            f"seen ({old * before} per GPU) as planned."
        )
    return rows


def video_only_note(
    change: tuple[str, object] | None, base_name: str, config: Mapping[str, Any]
) -> str | None:
    """plan.md's words for the video-only choice, with the trainer docs' note on LoRA targets."""
    if change is None:
        return None
    key, value = change
    targets = trainer_config(config).lora.target_modules
    shown = "null" if value is None else str(value).lower()
    text = (
        f"Video only: `{key}: {shown}` (the one line changed for it), so the trainer reads no "
        f"audio latents and trains no audio."
    )
    if targets:
        text += (
            f" LoRA targets stay as shipped in {base_name} "
            f"(`{', '.join(str(t) for t in targets)}`). The trainer's "
            "docs/configuration-reference.md (Understanding Target Modules) advises the video "
            "attention layers (`attn1.*`, `attn2.*`) for video-only training: short patterns "
            "such as `to_k` also match the audio and audio-video attention modules. Edit "
            "`lora.target_modules` in config.yaml to follow it."
        )
    return text
