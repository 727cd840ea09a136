"""What the screens say about autotune, built from the constants and rules the engine runs.

F1 on the Autotune screen and the Probe screen's tier lines once said "50-step trials", a keep
rule the code no longer used, and "gradient checkpointing is the only lever on 80GB+" while the
demo's winner was a batch change. Here the words come from trial_config.TRIAL_STEPS, the
schedule's STAGES, NOISE and MARGIN, and its own no-op rule applied to each tier's base choices,
so they change when the engine does.
"""

from __future__ import annotations

from ltx_wizard.core.tuning.headroom import TrainSettings
from ltx_wizard.core.tuning.schedule import (  # the engine's own rules, not a copy
    MARGIN,
    MAX_TRIALS,
    NOISE,
    QUALITY,
    STAGES,
    Context,
)
from ltx_wizard.core.tuning.stage_rules import describe, rule_skip  # the engine's own rules
from ltx_wizard.core.gpu.tiers import Tier, policy_for

_DEFAULT = TrainSettings(
    quantization=None,
    optimizer_type="adamw",
    batch_size=1,
    gradient_accumulation_steps=1,
    gradient_checkpointing=True,
)


def tier_settings(tier: Tier) -> TrainSettings:
    """The lever values of the tier's base config, as its policy records them."""
    return _DEFAULT.with_changes({c.key: c.value for c in policy_for(tier).key_choices})


def tier_levers(tier: Tier, *, allow_batch_change: bool = False) -> list[tuple[str, str]]:
    """(stage, change) the engine tries on this tier's base config, in order, each assumed kept
    (a lever the rules make a no-op there is left out, as the engine skips it; so is a batch
    change the schedule rule refuses: one that would change the effective batch)."""
    settings = tier_settings(tier)
    ctx = Context(
        tier=tier,
        gpu_total_gb=None,
        transformer_params=None,
        subset_samples=64,
        allow_batch_change=allow_batch_change,
    )
    levers = []
    for stage in STAGES[1:]:
        if rule_skip(stage, settings, ctx, []):  # as the engine's _build skips it
            continue
        change, changes = describe(stage, settings, ctx)
        levers.append((stage, change))
        settings = settings.with_changes(changes)
    return levers


def keep_rules() -> str:
    return (
        f"A quality lever (quantization off, AdamW) is kept when its trial peaks at most "
        f"{MARGIN:.0%} of the card and is not more than {NOISE:.0%} slower per sample; a speed "
        f"lever (a larger batch, gradient checkpointing off) only when it is more than "
        f"{NOISE:.0%} faster per sample."
    )


def levers_list(tier: Tier, *, allow_batch_change: bool = False) -> str:
    """`batch_size 1 -> 2 (speed), ...`: the tier's levers in the engine's order."""
    return ", ".join(
        f"{change} ({'quality' if stage in QUALITY else 'speed'})"
        for stage, change in tier_levers(tier, allow_batch_change=allow_batch_change)
    )


def levers_sentence(tier: Tier) -> str:
    """The Probe screen's line: what autotune will try on this tier."""
    levers = levers_list(tier)
    held = len(tier_levers(tier, allow_batch_change=True)) > len(tier_levers(tier))
    batch = (
        " A larger batch would change the training schedule: it runs only when you allow "
        "a batch change (the steps are then rescaled)."
        if held
        else ""
    )
    if not levers:
        return "Autotune runs the baseline only: every lever is already set." + batch
    return f"Autotune tries, each on the best so far: {levers}.{batch}"


def trials_sentence() -> str:
    # trial_config loads ruamel: imported here, not for the probe screen's levers sentence
    from ltx_wizard.core.tuning.trial_config import FUSED_STEPS, TRIAL_STEPS

    return (
        f"Runs at most {MAX_TRIALS} short {TRIAL_STEPS}-step trials that measure training only "
        "(no validation, no text encoder): the baseline, then the best so far plus one change. "
        f"A trial that is certainly the last then validates at step {FUSED_STEPS}, loading the text "
        "encoder: the winner's confirmation, in the same process."
    )
