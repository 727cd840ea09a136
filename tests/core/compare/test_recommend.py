"""core/compare/recommend.py: each rule of its docstring, and the reason's words read back against
the numbers it was given (loss_record.py's digits)."""

from __future__ import annotations

import math
import re

import pytest

from ltx_wizard.core.compare.loss_record import effect_text, loss_text
from ltx_wizard.core.compare.recommend import EFFECT_FLOOR, CheckpointResult, overfit_step, recommend

NAN = "video attention: 1,024 NaN and 0 Inf values in 4 of 4 modules"
AUDIO = "audio attention: 4 of 4 modules trained on a video-only run (the config gives the model no audio)"


def _ckpt(
    step: int, held: float | None, train: float | None = None, effect: float | None = 0.14, *problems: str
):
    path = f"/r/outputs/checkpoints/lora_weights_step_{step:05d}.safetensors"
    return CheckpointResult(step, path, held, train, effect, not problems, tuple(problems))


# after the example: lowest at 1,400, held-out loss rising after it while train falls
RUN = [
    _ckpt(700, 0.1250, 0.1200, 0.08),
    _ckpt(1400, 0.11324, 0.10206, 0.1425),
    _ckpt(2000, 0.1140, 0.0980, 0.16),
    _ckpt(2600, 0.1171, 0.0931, 0.17),
    _ckpt(3200, 0.1222, 0.0870, 0.18),
]


def test_the_lowest_held_out_loss_is_recommended_with_its_train_loss_gap_effect_and_over_fitting():
    rec = recommend(RUN, None)
    assert rec.step == 1400
    assert rec.reason == (
        "step 1,400: lowest held-out loss (0.1132; train 0.1021, gap +0.0112); effect 14.25 % against base; "
        "held-out loss rising after step 1,400 (over-fitting)"
    )


def test_the_reasons_numbers_are_the_picks_numbers_as_loss_record_prints_them():
    rec = recommend(list(reversed(RUN)), None)  # the order given does not matter
    found = re.match(
        r"step ([\d,]+): lowest held-out loss \(([\d.]+); train ([\d.]+), gap ([+-][\d.]+)\); "
        r"effect ([\d.]+ %) against base; held-out loss rising after step ([\d,]+)",
        rec.reason,
    )
    assert found is not None
    pick = next(r for r in RUN if r.step == int(found[1].replace(",", "")))
    assert pick.held_out_loss == min(r.held_out_loss for r in RUN if r.held_out_loss is not None)
    assert (found[2], found[3], found[5]) == (
        loss_text(pick.held_out_loss),
        loss_text(pick.train_loss),
        effect_text(pick.effect),
    )
    assert math.isclose(float(found[4]), pick.held_out_loss - pick.train_loss, abs_tol=5e-5)
    turn = int(found[6].replace(",", ""))
    after = [r for r in RUN if r.step >= turn]
    assert all(b.held_out_loss > a.held_out_loss for a, b in zip(after, after[1:]))
    assert all(b.train_loss < a.train_loss for a, b in zip(after, after[1:]))


def test_an_unhealthy_checkpoint_is_never_recommended_even_with_the_lowest_loss():
    results = [*RUN, _ckpt(1700, 0.0500, 0.0400, 0.15, AUDIO)]
    rec = recommend(results, None)
    assert rec.step == 1400
    assert rec.reason.endswith(f"; left out as unhealthy: step 1,700 ({AUDIO})")


def test_a_nan_is_never_recommended_even_when_its_health_says_ok():
    for bad in (_ckpt(1700, math.nan, 0.05), _ckpt(1700, 0.05, 0.04, math.inf)):
        rec = recommend([*RUN, bad], None)
        assert rec.step == 1400
        assert "left out as unhealthy: step 1,700 (a loss or its effect is not finite)" in rec.reason


def test_with_every_checkpoint_unhealthy_nothing_is_recommended_and_each_is_named():
    rec = recommend([_ckpt(500, None, None, None, NAN), _ckpt(1000, 0.1, 0.1, 0.1, AUDIO, NAN)], None)
    assert rec.step is None
    assert rec.reason == (
        f"no checkpoint can be recommended: all 2 are unhealthy (step 500: {NAN}; step 1,000: {AUDIO})"
    )
    assert recommend([], None).step is None


def test_a_tie_on_the_printed_digits_goes_to_the_earlier_step():
    # 0.11321 and 0.11324 both print 0.1132: the later one is not told apart, so the earlier wins
    rec = recommend([_ckpt(1000, 0.11324, 0.1), _ckpt(1500, 0.11321, 0.1), _ckpt(2000, 0.2, 0.1)], None)
    assert rec.step == 1000
    rec = recommend([_ckpt(1000, 0.1136, 0.1), _ckpt(1500, 0.1132, 0.1)], None)
    assert rec.step == 1500  # past the tie, the lower one


def test_a_tiny_effect_is_not_recommended_over_one_that_has_an_effect():
    tiny = EFFECT_FLOOR / 2
    rec = recommend([_ckpt(500, 0.1000, 0.1000, tiny), _ckpt(1000, 0.1100, 0.0990, 0.12)], None)
    assert rec.step == 1000
    assert rec.reason == (
        "step 1,000: lowest held-out loss (0.1100; train 0.0990, gap +0.0110); effect 12.00 % against base; "
        "step 500 has a lower held-out loss (0.1000) but changes almost nothing (effect 0.50 %)"
    )


def test_a_healthy_one_without_a_held_out_loss_is_named_when_the_pick_rests_on_one():
    rec = recommend([_ckpt(500, 0.1000, 0.1, 0.1), _ckpt(1000, None, None, None)], None)
    assert rec.step == 500
    assert rec.reason.endswith("effect 10.00 % against base; step 1,000 has no held-out loss")


def test_when_every_healthy_one_changes_almost_nothing_the_pick_says_so():
    rec = recommend([_ckpt(500, 0.1000, 0.1, 0.004), _ckpt(1000, 0.0990, 0.1, 0.006)], None)
    assert rec.step == 1000
    assert rec.reason.endswith("effect 0.60 % against base, changes almost nothing (under 1.00 %)")


@pytest.mark.parametrize(
    ("held", "train", "turn"),
    [
        ((0.12, 0.11, 0.12, 0.13), (0.12, 0.11, 0.10, 0.09), 1000),  # two rises, train falling
        ((0.12, 0.11, 0.10, 0.11), (0.12, 0.11, 0.10, 0.09), None),  # one rise: may be noise
        ((0.12, 0.11, 0.12, 0.13), (0.09, 0.10, 0.11, 0.12), None),  # train rising too: not over-fitting
        ((0.13, 0.12, 0.11, 0.10), (0.12, 0.11, 0.10, 0.09), None),  # still falling
        ((0.11, 0.12, 0.13), (0.12, 0.11, 0.10), 500),
        ((0.12, 0.11, 0.12, 0.13), (0.11, 0.11, 0.11, 0.11), 1000),  # train flat: the gap widens
    ],
)
def test_over_fitting_is_a_held_out_loss_rising_at_the_last_checkpoints_while_train_does_not_rise(
    held, train, turn
):
    results = [_ckpt(500 * (i + 1), h, t) for i, (h, t) in enumerate(zip(held, train))]
    assert overfit_step(results) == turn
    said = "held-out loss rising after" in recommend(results, None).reason
    assert said == (turn is not None)


def test_without_held_out_losses_the_latest_healthy_one_with_an_effect_is_named_with_the_note():
    results = [
        _ckpt(500, None, None, 0.08),
        _ckpt(1000, None, None, 0.12),
        _ckpt(1500, None, None, 0.003),  # changes almost nothing
        _ckpt(2000, None, None, 0.2, NAN),
    ]
    rec = recommend(results, "no clips were held out")
    assert rec.step == 1000
    assert rec.reason == (
        "step 1,000: latest healthy checkpoint with an effect (effect 12.00 % against base); "
        f"no held-out loss: no clips were held out; left out as unhealthy: step 2,000 ({NAN})"
    )


def test_without_held_out_losses_nor_effects_the_latest_healthy_one_is_named():
    results = [_ckpt(500, None, 0.2, None), _ckpt(1000, None, 0.1, None)]
    rec = recommend(results, "no clips were held out")
    assert rec.step == 1000
    assert rec.reason == (
        "step 1,000: latest healthy checkpoint (effect not measured; train loss 0.1000); "
        "no held-out loss: no clips were held out"
    )
    assert recommend(results, None).reason.endswith("no held-out loss: not computed")
