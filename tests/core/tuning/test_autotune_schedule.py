"""The autotune rules on every tier and outcome, without running anything."""

from __future__ import annotations

import pytest

from ltx_wizard.core.tuning.results import TrialResult
from ltx_wizard.core.tuning.headroom import TrainSettings, predict, static_gb
from ltx_wizard.core.tuning.schedule import Context, Tuner
from ltx_wizard.core.gpu.tiers import Tier

LOW = TrainSettings("int8-quanto", "adamw8bit", 1, 1, True, lora_rank=16)
STD = TrainSettings(None, "adamw", 1, 1, True, lora_rank=32)
A6000, RTX5090, H100, H200 = 47.9, 31.8, 79.6, 140.4


def drive(tuner: Tuner, outcomes: dict[str, tuple[str, float | None, float | None]]):
    """Run the tuner, answering each trial from `outcomes[stage] = (outcome, step_s, peak_gb)`."""
    ran = []
    while (cand := tuner.next()) is not None:
        outcome, step, peak = outcomes[cand.stage]
        ran.append(cand.stage)
        tuner.record(
            TrialResult(
                index=cand.index,
                change=cand.change,
                changes=cand.changes,
                outcome=outcome,
                step_time_s=step,
                peak_vram_gb=peak,
            )
        )
    return ran


def by_change(tuner):
    """Results by their change; a batch change also under its first part ("batch_size 1 -> 2")."""
    found = {r.change: r for r in tuner.results}
    for r in tuner.results:
        found.setdefault(r.change.split(",")[0], r)
    return found


def test_32gb_tier_never_tries_bf16_weights_it_cannot_hold_and_goes_on_to_the_optimizer():
    # issue 41: a skipped trial 2 is no OOM; the skill's "quantization -> null (if headroom
    # allows)" then "optimizer_type -> adamw": the lever announced on the Probe screen is tried
    tuner = Tuner(LOW, Context(Tier.T32, RTX5090, 22e9, subset_samples=1))
    ran = drive(tuner, {"baseline": ("ok", 4.0, 30.0), "optimizer": ("ok", 4.0, 30.2)})
    assert ran == ["baseline", "optimizer"]
    skipped = by_change(tuner)["quantization int8-quanto -> null"]
    assert skipped.outcome == "skipped"
    # bf16 weights 41.0 + LoRA in fp32 with grads and 8-bit AdamW state 1.2 + overhead 2.5
    assert "needs at least 44.6 GiB (weights 41.0" in skipped.reason and "30.8 GiB" in skipped.reason
    assert "OOM" not in tuner.stop_reason and "out of memory" not in tuner.stop_reason
    assert tuner.winner == 3 and tuner.winner_changes == {"optimization.optimizer_type": "adamw"}


def test_quantization_oom_goes_back_to_the_baseline_and_stops():
    tuner = Tuner(LOW, Context(Tier.T40_60, A6000, 22e9, subset_samples=4))
    ran = drive(tuner, {"baseline": ("ok", 4.0, 41.0), "quantization": ("oom", None, None)})
    assert ran == ["baseline", "quantization"]
    assert tuner.winner == 1 and tuner.winner_changes == {}
    assert "out of memory" in tuner.stop_reason


def test_40_60_tier_keeps_quality_levers_with_margin_and_speed_levers_when_faster():
    tuner = Tuner(LOW, Context(Tier.T40_60, A6000, 22e9, allow_batch_change=True, subset_samples=4))
    ran = drive(
        tuner,
        {
            "baseline": ("ok", 4.0, 30.0),
            "quantization": ("ok", 3.2, 44.0),  # 92 % of the card: kept
            "optimizer": ("ok", 3.25, 44.5),  # not faster, not slower beyond noise: kept all the same
            "batch2": ("ok", 5.4, 45.0),
            "batch4": ("oom", None, None),
        },
    )
    assert ran == ["baseline", "quantization", "optimizer", "batch2", "batch4"]
    assert tuner.winner_changes == {
        "acceleration.quantization": None,
        "optimization.optimizer_type": "adamw",
        "optimization.batch_size": 2,
        "optimization.gradient_accumulation_steps": 1,
    }
    assert tuner.winner == by_change(tuner)["batch_size 1 -> 2"].index
    assert [r.kept for r in tuner.results if r.ran] == [True, True, True, True, False]
    assert "out of memory" in tuner.stop_reason


def test_quality_lever_too_close_to_the_card_is_reverted_and_the_next_lever_tried():
    tuner = Tuner(LOW, Context(Tier.T40_60, A6000, 22e9, allow_batch_change=True, subset_samples=4))
    ran = drive(
        tuner,
        {
            "baseline": ("ok", 4.0, 30.0),
            "quantization": ("ok", 3.2, 47.1),  # faster, but 98 % of the card
            "optimizer": ("ok", 4.0, 30.4),
            "batch2": ("ok", 9.0, 33.0),  # 4.5 s/sample: slower, speed lever -> stop
        },
    )
    assert ran == ["baseline", "quantization", "optimizer", "batch2"]
    quant = by_change(tuner)["quantization int8-quanto -> null"]
    assert not quant.kept and "leaves less than 5% of 47.9 GiB" in quant.reason
    assert tuner.winner_changes == {"optimization.optimizer_type": "adamw"}
    assert "not faster" in tuner.stop_reason


def test_quality_lever_slower_beyond_noise_is_not_kept():
    tuner = Tuner(LOW, Context(Tier.T40_60, A6000, 22e9, subset_samples=1))
    drive(
        tuner,
        {"baseline": ("ok", 4.0, 30.0), "quantization": ("ok", 3.2, 44.0), "optimizer": ("ok", 3.4, 44.5)},
    )  # 6 % slower than trial 2
    opt = by_change(tuner)["optimizer adamw8bit -> adamw"]
    assert not opt.kept and "slower" in opt.reason
    assert tuner.winner_changes == {"acceleration.quantization": None}


def test_quality_lever_that_cannot_keep_the_margin_is_not_run():
    # 46.5 GB card: bf16 weights, LoRA state and overhead need 44.6 GB: under 97 %, not under 95 %.
    tuner = Tuner(LOW, Context(Tier.T40_60, 46.5, 22e9, subset_samples=1))
    ran = drive(tuner, {"baseline": ("ok", 4.0, 30.0), "optimizer": ("ok", 4.0, 30.3)})
    assert ran == ["baseline", "optimizer"]
    assert by_change(tuner)["quantization int8-quanto -> null"].reason.startswith("cannot be kept")


def test_looking_ahead_knows_the_last_trial_and_the_likely_path():
    tuner = Tuner(LOW, Context(Tier.T32, RTX5090, 22e9, allow_batch_change=True, subset_samples=1))
    first = tuner.next()
    assert not tuner.is_last(first)  # quantization cannot fit, the optimizer lever follows
    assert [c.stage for c in tuner.likely_path(8)] == ["baseline", "optimizer"]
    tuner = Tuner(STD, Context(Tier.T80, H100, 22e9, allow_batch_change=True, subset_samples=4))
    first = tuner.next()
    assert not tuner.is_last(first)
    path = tuner.likely_path(8)
    assert [c.stage for c in path] == ["baseline", "batch2", "batch4", "checkpointing"]
    assert path[3].config_changes["optimization.batch_size"] == 4  # on top of the kept batch 4
    assert tuner.results == [] and tuner._pending is first  # the real tuner is untouched


def test_fallback_drops_the_last_kept_change():
    tuner = Tuner(STD, Context(Tier.T80, H100, 22e9, allow_batch_change=True, subset_samples=4))
    drive(
        tuner,
        {
            "baseline": ("ok", 2.0, 60.0),
            "batch2": ("ok", 3.0, 66.0),
            "batch4": ("ok", 5.0, 70.0),
            "checkpointing": ("oom", None, None),
        },
    )
    assert tuner.winner_changes["optimization.batch_size"] == 4
    result, changes = tuner.fallback()
    assert changes["optimization.batch_size"] == 2 and tuner.winner == result.index
    assert tuner.settings.batch_size == 2  # the confirmation runs what the fallback says
    result, changes = tuner.fallback()
    assert changes == {} and tuner.winner == 1
    assert tuner.fallback() is None


def test_optimizer_oom_reverts_and_goes_on_to_the_batch_trial():
    base = TrainSettings(None, "adamw8bit", 1, 1, True)
    tuner = Tuner(base, Context(Tier.T40_60, 79.0, 22e9, allow_batch_change=True, subset_samples=2))
    drive(
        tuner, {"baseline": ("ok", 4.0, 50.0), "optimizer": ("oom", None, None), "batch2": ("ok", 7.0, 56.0)}
    )
    assert tuner.winner_changes["optimization.batch_size"] == 2
    assert "optimization.optimizer_type" not in tuner.winner_changes  # never carried forward


def test_80gb_tier_noops_are_skipped_never_run():
    tuner = Tuner(STD, Context(Tier.T80, H100, 22e9, subset_samples=1))
    ran = drive(tuner, {"baseline": ("ok", 2.0, 66.0), "checkpointing": ("oom", None, None)})
    assert ran == ["baseline", "checkpointing"]
    reasons = {r.change: r.reason for r in tuner.results if not r.ran}
    # named as levers already in place, not as a change to themselves ("None -> null")
    assert reasons["quantization off (already null)"].startswith("no-op")
    assert reasons["optimizer adamw (already)"].startswith("no-op")
    assert tuner.winner == 1 and tuner.winner_changes == {}


def test_the_stop_reason_counts_the_skipped_levers_instead_of_saying_every_lever_tried():
    tuner = Tuner(STD, Context(Tier.T80, H100, 22e9, subset_samples=1))
    drive(tuner, {"baseline": ("ok", 2.0, 66.0), "checkpointing": ("ok", 1.5, 70.0)})
    skipped = [r for r in tuner.results if not r.ran]
    assert skipped and "every lever tried" not in tuner.stop_reason
    assert f"{len(skipped)} skipped" in tuner.stop_reason


def test_a_speed_lever_that_is_not_faster_than_noise_is_reverted_and_stops():
    tuner = Tuner(STD, Context(Tier.T80, H100, 22e9, allow_batch_change=True, subset_samples=4))
    ran = drive(tuner, {"baseline": ("ok", 2.0, 60.0), "batch2": ("ok", 3.95, 66.0)})
    assert ran == ["baseline", "batch2"]  # batch 4 and checkpointing off are not tried
    assert tuner.winner == 1 and "not faster" in tuner.stop_reason


def test_batch_compares_seconds_per_sample_not_per_step():
    tuner = Tuner(STD, Context(Tier.T80, H100, 22e9, allow_batch_change=True, subset_samples=2))
    drive(
        tuner,
        {"baseline": ("ok", 2.0, 50.0), "batch2": ("ok", 3.0, 60.0), "checkpointing": ("oom", None, None)},
    )
    batch = by_change(tuner)["batch_size 1 -> 2"]
    assert batch.kept and batch.sec_per_sample == pytest.approx(1.5)
    assert "batch 4" in by_change(tuner)["batch_size 2 -> 4"].reason  # 2 samples only


def test_baseline_failure_means_no_winner():
    tuner = Tuner(LOW, Context(Tier.BELOW_MINIMUM, 23.9, 22e9, subset_samples=1))
    ran = drive(tuner, {"baseline": ("oom", None, None)})
    assert ran == ["baseline"] and tuner.winner is None
    assert "does not run here" in tuner.stop_reason


@pytest.mark.parametrize("outcome", ["nan", "crash", "timeout", "cancelled"])
def test_other_failures_revert_and_stop(outcome):
    tuner = Tuner(LOW, Context(Tier.T40_60, A6000, 22e9, subset_samples=4))
    ran = drive(tuner, {"baseline": ("ok", 4.0, 41.0), "quantization": (outcome, None, None)})
    assert ran == ["baseline", "quantization"] and tuner.winner == 1
    assert tuner.winner_changes == {}
    if outcome == "cancelled":
        assert tuner.stop_reason == "cancelled"


def test_at_most_max_trials_run():
    tuner = Tuner(LOW, Context(Tier.T40_60, 200.0, 22e9, subset_samples=4, max_trials=2))
    ran = drive(tuner, {"baseline": ("ok", 4.0, 20.0), "quantization": ("ok", 3.0, 40.0)})
    assert ran == ["baseline", "quantization"] and "2-trial limit" in tuner.stop_reason


def test_multi_gpu_batch_needs_samples_for_every_gpu():
    tuner = Tuner(STD, Context(Tier.T80, H100, 22e9, allow_batch_change=True, subset_samples=2, num_gpus=2))
    drive(tuner, {"baseline": ("ok", 2.0, 50.0), "checkpointing": ("oom", None, None)})
    assert "needs 4" in by_change(tuner)["batch_size 1 -> 2"].reason


def test_effective_batch_is_kept_by_lowering_accumulation():
    base = TrainSettings(None, "adamw", 1, 4, True)
    tuner = Tuner(base, Context(Tier.T80, H200, 22e9, subset_samples=4))
    drive(
        tuner,
        {
            "baseline": ("ok", 8.0, 50.0),
            "batch2": ("ok", 7.0, 60.0),
            "batch4": ("ok", 6.5, 70.0),
            "checkpointing": ("oom", None, None),
        },
    )
    assert tuner.winner_changes["optimization.batch_size"] == 4
    assert tuner.winner_changes["optimization.gradient_accumulation_steps"] == 1


def test_full_finetune_adamw_cannot_fit_beside_the_weights():
    base = TrainSettings(None, "adamw8bit", 1, 1, True, training_mode="full")
    fit = predict(base, base.with_changes({"optimization.optimizer_type": "adamw"}), 70.0, H100, 22e9)
    assert not fit.fits and "optimizer states 163.9" in fit.reason


def test_dropping_int8_adds_one_byte_per_parameter():
    proposed = LOW.with_changes({"acceleration.quantization": None})
    assert static_gb(proposed, 22e9) - static_gb(LOW, 22e9) == pytest.approx(22e9 / 1024**3)
    fit = predict(LOW, proposed, 30.0, 1000.0, 22e9)
    assert fit.fits and fit.extra_gb == pytest.approx(22e9 / 1024**3, rel=0.01)


def test_a_tight_trial_still_runs_because_peaks_include_allocator_cache():
    # H100 standard config reads ~66 GB through NVML though it needs ~48: batch 2 may well fit.
    fit = predict(STD, STD.with_changes({"optimization.batch_size": 2}), 66.0, H100, 22e9)
    assert fit.fits and "tight" in fit.reason and fit.predicted_gb > H100 * 0.97


def test_each_trial_carries_the_rules_decision_that_the_reason_column_shows():
    tuner = Tuner(
        LOW, Context(Tier.T40_60, A6000, 22e9, subset_samples=4, allow_batch_change=True)
    )  # batch trials run (schedule rescaled)
    drive(
        tuner,
        {
            "baseline": ("ok", 4.0, 30.0),
            "quantization": ("ok", 3.2, 46.5),  # 97 % of the card: not kept
            "optimizer": ("ok", 4.0, 30.5),
            "batch2": ("ok", 6.8, 38.0),  # 3.4 s per sample against 4.0: 15 % faster
            "batch4": ("ok", 13.4, 44.0),  # 3.35 against 3.4: 1 % faster, within noise
        },
    )
    got = {r.change: r for r in tuner.results}
    assert got["baseline"].decision == "kept: runs as planned"
    assert got["quantization int8-quanto -> null"].decision.startswith("not kept: peak 46.5 GiB")
    assert got["optimizer adamw8bit -> adamw"].decision == "kept: fits ≤95%, not slower beyond 3%"
    b2, b4 = "batch_size 1 -> 2, effective batch 1 -> 2", "batch_size 2 -> 4, effective batch 2 -> 4"
    assert got[b2].kept and got[b2].decision == "kept: 15% faster per sample"
    assert got[b4].decision == "not kept: 1% faster per sample, needs > 3%"
    assert all(r.decision for r in tuner.results)  # skipped ones say why they did not run


def test_a_batch_the_trial_data_cannot_fill_does_not_say_the_flag_would_run_it():
    # issue 41: rows 4-5 said "--allow-batch-change runs it" beside plan.md's "a larger batch
    # cannot be tried on this run" (one clip preprocessed first: no batch of 2 either way)
    tuner = Tuner(LOW, Context(Tier.T32, RTX5090, 22e9, subset_samples=1))
    drive(tuner, {"baseline": ("ok", 4.0, 30.0), "optimizer": ("ok", 4.0, 30.2)})
    rows = [r for r in tuner.results if r.change.startswith("batch_size")]
    assert len(rows) == 2 and all(r.outcome == "skipped" for r in rows)
    assert all("--allow-batch-change" not in r.reason for r in rows)
    assert rows[0].reason == "the trial data holds 1 sample(s); batch 2 on 1 GPU(s) needs 2"
    # with data enough, the schedule's refusal still names the flag
    tuner = Tuner(LOW, Context(Tier.T32, RTX5090, 22e9, subset_samples=4))
    drive(tuner, {"baseline": ("ok", 4.0, 30.0), "optimizer": ("ok", 4.0, 30.2)})
    assert "--allow-batch-change runs it" in by_change(tuner)["batch_size 1 -> 2"].reason
