"""F1 and the Probe screen describe autotune with the engine's own constants and rules."""

from __future__ import annotations

import pytest

from ltx_wizard.core.tuning import rules_text
from ltx_wizard.core.tuning.schedule import MARGIN, MAX_TRIALS, NOISE, Context, Tuner, _assumed
from ltx_wizard.core.tuning.trial_config import TRIAL_STEPS
from ltx_wizard.core.gpu.tiers import Tier
from ltx_wizard.tui.dialogs.help import help_for_class
from ltx_wizard.tui.screens.autotune import AutotuneScreen
from ltx_wizard.tui.screens.probe import ProbeScreen


def _engine_path(tier: Tier) -> list[str]:
    """The changes the real Tuner runs on the tier's base config when every trial is kept."""
    ctx = Context(
        tier=tier,
        gpu_total_gb=None,
        transformer_params=None,
        subset_samples=64,
        max_trials=len(rules_text.STAGES),
    )
    tuner = Tuner(rules_text.tier_settings(tier), ctx)
    ran = []
    while (cand := tuner.next()) is not None:
        if cand.stage != "baseline":
            ran.append(cand.change)
        tuner.record(_assumed(tuner, cand, "kept"))
    return ran


@pytest.mark.parametrize("tier", [Tier.T32, Tier.T40_60, Tier.T80])
def test_the_levers_shown_per_tier_are_the_ones_the_engine_runs(tier):
    levers = _engine_path(tier)
    assert [change for _, change in rules_text.tier_levers(tier)] == levers
    sentence = rules_text.levers_sentence(tier)
    assert all(change in sentence for change in levers)
    assert all(change in help_for_class(ProbeScreen)[1] for change in levers)


def test_80gb_names_what_the_engine_runs_with_and_without_a_batch_change():
    # The shipped 80GB config trains batch 1 without accumulation: a larger batch would change
    # the approved schedule, so by default the engine skips it, and the Probe screen says so.
    sentence = rules_text.levers_sentence(Tier.T80)
    assert "gradient checkpointing off" in sentence and "batch_size" not in sentence
    assert "only when you allow a batch change" in sentence
    assert "quantization" not in sentence  # no-ops there
    allowed = rules_text.levers_list(Tier.T80, allow_batch_change=True)
    assert "batch_size 1 -> 2" in allowed and "gradient checkpointing off" in allowed


def test_autotune_help_states_the_engines_step_count_and_keep_rules():
    body = help_for_class(AutotuneScreen)[1]
    assert f"{TRIAL_STEPS}-step trials" in body and f"at most {MAX_TRIALS}" in body
    assert f"at most {MARGIN:.0%} of the card" in body
    assert f"more than {NOISE:.0%} faster per sample" in body
    assert "50-step" not in body
    assert "best result so far into `config.yaml`" in body  # what cancel does (engine._finish)


def test_the_cli_autotune_help_states_the_engines_trials_and_batch_rule(capsys):
    from ltx_wizard.cli import main

    try:
        main(["autotune", "--help"])
    except SystemExit:
        pass
    out = " ".join(capsys.readouterr().out.split()).replace("- ", "-")
    assert f"Run up to {MAX_TRIALS} {TRIAL_STEPS}-step trials" in out
    assert "a larger batch only where the effective batch stays as planned" in out
