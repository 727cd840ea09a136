"""The schedule the user approved is kept: a batch trial on each tier keeps the effective batch by
lowering gradient accumulation, is not run when it cannot, and with --allow-batch-change runs and
rescales optimization.steps so the samples seen stay as planned."""

from __future__ import annotations

import pytest

from ltx_wizard.core.tuning.batch_rule import effective
from ltx_wizard.core.tuning.results import TrialResult
from ltx_wizard.core.tuning.headroom import TrainSettings
from ltx_wizard.core.tuning.schedule import Context, Tuner
from ltx_wizard.core.autotune.outputs.tuned_config import tuned_config
from ltx_wizard.core.gpu.tiers import Tier

# (tier, card GiB, the tier's shipped levers, transformer params): the 32GB tier with a model
# small enough that its quantization-off trial can fit, so its batch trials are reached.
TIERS = {
    "32GB": (Tier.T32, 31.8, ("int8-quanto", "adamw8bit", True), 8e9),
    "40-60GB": (Tier.T40_60, 47.9, ("int8-quanto", "adamw8bit", True), 22e9),
    "80GB+": (Tier.T80, 79.6, (None, "adamw", True), 22e9),
}
PLANNED = (
    "optimization:\n  steps: 2000  # shipped comment\n  batch_size: 1\n"
    "  gradient_accumulation_steps: {accum}\n"
)


def tuner_for(tier: str, accum: int, allow: bool = False) -> Tuner:
    level, total, (quant, optim, ckpt), params = TIERS[tier]
    base = TrainSettings(quant, optim, 1, accum, ckpt)
    return Tuner(base, Context(level, total, params, subset_samples=8, allow_batch_change=allow))


def drive(tuner: Tuner) -> list:
    """Every trial succeeds; a bigger batch is faster per sample, checkpointing off runs out."""
    ran = []
    while (cand := tuner.next()) is not None:
        ran.append(cand)
        outcome = "oom" if cand.stage == "checkpointing" else "ok"
        samples = effective(cand.settings)
        per_sample = 4.0 / cand.settings.batch_size**0.5
        tuner.record(
            TrialResult(
                index=cand.index,
                change=cand.change,
                changes=cand.changes,
                outcome=outcome,
                step_time_s=per_sample * samples,
                peak_vram_gb=0.5 * tuner.ctx.gpu_total_gb,
            )
        )
    return ran


@pytest.mark.parametrize("tier", TIERS)
def test_accumulation_is_lowered_to_keep_the_effective_batch(tier):
    tuner = tuner_for(tier, accum=4)
    ran = drive(tuner)
    batches = [
        (c.settings.batch_size, c.settings.gradient_accumulation_steps)
        for c in ran
        if c.stage.startswith("batch")
    ]
    assert batches == [(2, 2), (4, 1)]  # 2 x 2 and 4 x 1: still 4 samples per step
    assert effective(tuner.settings) == 4 and tuner.settings.batch_size == 4
    tuned = tuned_config(PLANNED.format(accum=4), tuner.winner_changes, tuner.base, tuner.settings)
    assert tuned.steps is None and "steps: 2000  # shipped comment\n" in tuned.text


@pytest.mark.parametrize("tier", TIERS)
def test_a_batch_that_would_change_the_effective_batch_is_not_run(tier):
    tuner = tuner_for(tier, accum=1)
    ran = drive(tuner)
    assert not any(c.settings.batch_size > 1 for c in ran)  # never run at batch 2 or 4
    skipped = next(r for r in tuner.results if r.change.startswith("batch_size 1 -> 2"))
    assert skipped.outcome == "skipped"
    assert "effective batch 1 -> 2" in skipped.reason and "--allow-batch-change" in skipped.reason
    four = next(r for r in tuner.results if r.change.startswith("batch_size 1 -> 4"))
    assert four.outcome == "skipped" and "effective batch 1 -> 4" in four.reason
    assert tuner.settings.batch_size == 1 and effective(tuner.settings) == 1


@pytest.mark.parametrize("tier", TIERS)
def test_allow_batch_change_runs_it_and_rescales_steps_to_the_planned_samples(tier):
    tuner = tuner_for(tier, accum=1, allow=True)
    ran = drive(tuner)
    assert [c.settings.batch_size for c in ran if c.stage.startswith("batch")] == [2, 4]
    assert tuner.settings.batch_size == 4
    tuned = tuned_config(PLANNED.format(accum=1), tuner.winner_changes, tuner.base, tuner.settings)
    assert tuned.steps == (2000, 500)  # 500 steps x 4 samples = the planned 2000 x 1
    assert "steps: 500  # shipped comment  # ltx-wizard: autotune" in tuned.text
    assert "batch_size: 4  # ltx-wizard: autotune (was 1)" in tuned.text


def test_an_accumulation_that_does_not_divide_is_not_rounded_away():
    tuner = tuner_for("80GB+", accum=3)
    drive(tuner)
    skipped = next(r for r in tuner.results if r.change.startswith("batch_size 1 -> 2"))
    assert skipped.outcome == "skipped" and "do not divide into batches of 2" in skipped.reason


@pytest.mark.parametrize("tier", TIERS)
def test_quantization_is_only_ever_turned_off_never_stepped_down(tier):
    for allow in (False, True):
        tuner = tuner_for(tier, accum=4, allow=allow)
        for cand in drive(tuner):
            assert cand.settings.quantization in (None, "int8-quanto")
            assert cand.changes.get("acceleration.quantization", None) is None
