"""What comparing the kept checkpoints costs, as plan.md states it before launch (issue 44, Deliver 8):
core/plan/compare_cost.py's arithmetic, its mirrored counts against their owners, and plan.md's
words against the numbers for planned and autotuned demo runs (rtx5090, a6000, h100)."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from ltx_wizard.core.evaluation import prompts
from ltx_wizard.core.plan import compare_cost as cc
from ltx_wizard.core.plan.compare_cost_words import compare_cost_lines, pct
from ltx_wizard.core.plan.plan_md import _held_out_count
from ltx_wizard.core.tuning.duration import Duration, clock

ROOT = Path(__file__).resolve().parents[3]
BENCH = ROOT / "benchmarks" / "bench_compare_cost.py"


def _config(checkpointing: bool = True, interval: int = 400, steps: int = 2000) -> dict:
    return {
        "model": {"training_mode": "lora"},
        "optimization": {"steps": steps, "batch_size": 1, "enable_gradient_checkpointing": checkpointing},
        "checkpoints": {"interval": interval, "keep_last_n": -1},
        "validation": {"samples": [{"prompt": "a"}], "interval": 250, "inference_steps": 30},
    }


def _duration(step_s: float = 2.0, load_s: float = 120.0, steps: int = 2000) -> Duration:
    # one video at the config's 30 steps: 40 - 4 x 1 + 30 x 1 = 66 s
    return Duration(steps, step_s, 9, 1, 40.0, load_s, 30, denoise_step_s=1.0, saves=5)


def test_the_passes_and_seconds_follow_the_loss_programs_grid():
    cost = cc.compare_cost(_config(), _duration(), held_out=7, gpus=1)
    # every 400 of 2,000 steps, every save kept: 400 ... 2,000
    assert (cost.checkpoints, cost.samples, cost.sigmas) == (5, 4, 5)
    # held-out and train latents for the base and each checkpoint (compare always asks for the base)
    assert cost.passes == 2 * 4 * 5 * (5 + 1)
    assert cost.forward_s == pytest.approx(2.0 / 4)  # gradient checkpointing: a quarter of a step
    # with renders the loss runs on the tournament's model load: its share is its passes alone
    assert cost.loss_s() == pytest.approx(240 * 0.5)
    assert cost.loss_alone_s() == pytest.approx(120.0 + 240 * 0.5)  # --no-render: its own load
    assert cost.prompts == 3  # the tournament: one prompt of each of eval's three categories
    # the clip: 17 of 89 frames (3 of 12 latent frames) at 480x256 of 960x544 (the default size),
    # 15 of 30 inference steps; the measured video's rest (40 - 4 x 1 s) at the share of the pixels
    tokens, pixels = (480 * 256 * 3) / (960 * 544 * 12), (480 * 256 * 17) / (960 * 544 * 89)
    assert (cost.clip, cost.run_dims, cost.clip_steps) == ((480, 256, 17), (960, 544, 89), 15)
    assert cost.video_s == pytest.approx(36.0 * pixels + 15 * 1.0 * tokens)
    assert cost.run_video_s == pytest.approx(66.0)
    # one model load for the whole tournament (one process), then base + 5 checkpoints x 3 clips
    assert cost.render_s() == pytest.approx(120.0 + 6 * 3 * cost.video_s)
    assert cost.share(cost.loss_s()) == pytest.approx(120.0 / 4000.0)
    assert cost.total_s() == pytest.approx(cost.loss_s() + cost.render_s())  # one load in all
    assert cc.compare_cost(_config(checkpointing=False), _duration(), 7, 1).forward_s == pytest.approx(
        2.0 / 3
    )
    # four GPUs train four times the GPU seconds
    assert cc.compare_cost(_config(), _duration(), 7, 4).train_gpu_s == pytest.approx(4 * 4000.0)


def test_the_tournaments_mirrored_settings_match_its_own():
    from ltx_wizard.core.evaluation import eval_config, tournament

    assert (cc.TOURNAMENT_FRAMES, cc.TOURNAMENT_STEPS) == (
        tournament.TOURNAMENT_FRAMES,
        tournament.TOURNAMENT_STEPS,
    )
    assert cc.TOURNAMENT_CATEGORIES + 1 == len(prompts.CATEGORIES)
    assert cc.DEFAULT_VIDEO_DIMS == eval_config.video_dims({})
    for dims in [(960, 544, 89), (576, 576, 89), (64, 64, 9), (1280, 704, 121), (100, 70, 17)]:
        config = {"validation": {"video_dims": list(dims), "inference_steps": 40}}
        settings = tournament.tournament_settings(config)
        assert settings.dims == cc.clip_dims(cc.run_dims(config)), dims
        assert settings.inference_steps == min(40, cc.TOURNAMENT_STEPS)


def test_the_loss_passes_compare_runs_are_the_ones_plan_md_prices():
    from ltx_wizard.core.compare import compare_plan

    assert (compare_plan.SAMPLE, len(compare_plan.SIGMAS)) == (cc.LOSS_SAMPLE, cc.LOSS_SIGMAS)
    cost = cc.compare_cost(_config(), _duration(), 4, 1)
    for checkpoints in range(1, 9):
        for samples in range(1, 5):
            planned = compare_plan.forward_passes(checkpoints, samples)
            assert planned == cost.loss_passes(checkpoints, samples), (checkpoints, samples)


def test_the_mirrored_counts_match_their_owners():
    assert (cc.IN_DIST_PROMPTS, cc.HELD_OUT_PROMPTS) == (prompts.IN_DIST_COUNT, prompts.HELD_OUT_MAX)
    assert cc.OUT_DIST_PROMPTS == len(prompts.synthesised("tok", audio=False))
    source = (ROOT / "ltx_wizard" / "trainer_side" / "heldout_loss.py").read_text("utf-8")
    tree = ast.parse(source)
    sigmas = next(
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Assign) and ast.unparse(n.targets[0]) == "DEFAULT_SIGMAS"
    )
    assert len(ast.literal_eval(sigmas)) == cc.LOSS_SIGMAS
    sample = next(
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call) and ast.unparse(n).startswith("p.add_argument('--sample'")
    )
    assert next(k.value.value for k in sample.keywords if k.arg == "default") == cc.LOSS_SAMPLE


def _text(cost: cc.CompareCost) -> str:
    return "\n".join(compare_cost_lines(cost, 2000, 2.0, 1))


def test_within_the_targets_no_excess_is_said():
    cost = cc.compare_cost(_config(interval=400), _duration(step_s=60.0, load_s=60.0), 4, 1)
    text = _text(cost)
    assert f"= {cost.passes} forward passes x ~15.00 s" in text
    assert f"{pct(cost.share(cost.loss_s()))} of the training GPU time (target <= 5.0 %)" in text
    assert f"whole comparison: {clock(cost.total_s())}, {pct(cost.share(cost.total_s()))}" in text
    assert cost.share(cost.total_s()) <= cc.TOURNAMENT_TARGET and "Over target" not in text


def test_the_samples_are_the_most_that_fit_the_loss_budget():
    cost = cc.compare_cost(_config(interval=200), _duration(step_s=12.0, load_s=300.0), 4, 1)
    # 4 samples would be over the target; 3 is the most that fits, and plan.md says which and why
    assert (cost.samples, cost.most) == (3, 4) and cost.most_samples() == 3
    assert cost.share(cost.loss_s(samples=3)) <= cc.LOSS_TARGET < cost.share(cost.loss_s(samples=4))
    text = _text(cost)
    assert "- held-out loss: 3 of the 4 held-out samples the clips give (the most within the target)" in text
    assert "Over target" not in text
    # fewer clips held out: fewer samples, whatever the budget allows, and the line says why
    two = cc.compare_cost(_config(), _duration(), 2, 1)
    assert (
        two.samples == 2
        and "2 held-out samples (all the held-out clips give, within the target)" in _text(two)
    )
    four = cc.compare_cost(_config(), _duration(), 7, 1)  # seven held out: the loss takes four
    assert "4 held-out samples (the most the loss takes, within the target)" in _text(four)
    # the same function gives compare its --sample; without autotune's duration, 4 (clips permitting)
    assert cc.loss_samples(_config(interval=200), _duration(step_s=12.0, load_s=300.0), 4, 1) == 3
    assert (cc.loss_samples(_config(), None, 7, 1), cc.loss_samples(_config(), None, 2, 1)) == (4, 2)


def test_a_loss_over_its_budget_with_one_sample_says_what_brings_it_under():
    cost = cc.compare_cost(_config(interval=40), _duration(), 4, 1)  # 50 checkpoints kept
    loss_share = cost.share(cost.loss_s())
    assert cost.samples == 1 and loss_share is not None and loss_share > cc.LOSS_TARGET
    keep = cost.most_checkpoints(cc.LOSS_TARGET, whole=False)
    assert 0 < keep < cost.checkpoints
    assert cost.share(cost.loss_s(keep)) <= cc.LOSS_TARGET < cost.share(cost.loss_s(keep + 1))
    text = _text(cost)
    assert (
        "- held-out loss: 1 of the 4 held-out samples the clips give (the fewest, still over the target)"
        in text
    )
    assert (
        f"- Over target: the held-out loss is {pct(loss_share)} even with 1 held-out sample; keeping "
        f"{keep} checkpoints (or a longer run) would bring it under"
    ) in text


def test_the_whole_comparisons_excess_names_the_checkpoints_that_fit():
    cost = cc.compare_cost(_config(interval=200), _duration(step_s=2.0, load_s=400.0), 4, 1)
    whole = cost.most_checkpoints(cc.TOURNAMENT_TARGET, whole=True)
    assert cost.share(cost.total_s()) > cc.TOURNAMENT_TARGET and 0 < whole < cost.checkpoints
    assert f"the whole comparison is {pct(cost.share(cost.total_s()))}; " in _text(cost)
    assert f"keeping {whole} checkpoints would bring it under" in _text(cost)
    assert cost.share(cost.total_s(whole)) <= cc.TOURNAMENT_TARGET < cost.share(cost.total_s(whole + 1))


def test_a_run_too_short_for_even_one_checkpoints_loss_says_a_longer_run():
    cost = cc.compare_cost(_config(interval=10, steps=50), _duration(steps=50), 4, 1)
    assert cost.samples == 1 and cost.most_checkpoints(cc.LOSS_TARGET, whole=False) == 0
    assert "even the base and one checkpoint exceed it: only a longer run" in _text(cost)


def test_the_loss_line_charges_the_model_load_to_the_renders_and_names_no_render():
    cost = cc.compare_cost(_config(), _duration(), 4, 1)
    line = next(x for x in compare_cost_lines(cost, 2000, 2.0, 1) if x.startswith("- held-out loss"))
    assert f"2 x 4 x 5 sigmas x (the base + 5 checkpoints) = {cost.passes} forward passes" in line
    assert f"= {clock(cost.loss_s())}, {pct(cost.share(cost.loss_s()))} of the training GPU time" in line
    assert "no model load of its own" in line and "on the renders' one model load" in line
    assert (
        f"`compare --no-render` runs it alone, which adds one transformer load {clock(120.0)} "
        f"(the training run's, an upper bound): {pct(cost.share(cost.loss_alone_s()))}"
    ) in line


def test_without_held_out_clips_there_is_no_loss_and_the_renders_lose_that_category():
    cost = cc.compare_cost(_config(), _duration(load_s=700.0), 0, 1)  # the load alone: 17.5 %
    text = _text(cost)
    assert cost.loss_s() == 0.0 and cost.prompts == 2
    assert "- held-out loss: not run, no clips were held out" in text
    assert "(the health check only)" in text  # the renders alone exceed the target here


def test_the_held_out_count_is_read_from_preprocess_json():
    def state(**held):
        return SimpleNamespace(held_out=SimpleNamespace(**held))

    assert _held_out_count(None) == 0
    assert _held_out_count(state(file=None, done=False, samples=(), encoded=())) == 0
    assert _held_out_count(state(file=Path("h"), done=False, samples=("a", "b", "c"), encoded=())) == 3
    assert _held_out_count(state(file=Path("h"), done=True, samples=("a", "b", "c"), encoded=("a",))) == 1


def _bench():
    spec = importlib.util.spec_from_file_location("bench_compare_cost", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("case", ["rtx5090", "a6000", "h100"])
def test_plan_md_states_the_cost_of_comparing_an_autotuned_demo_run(tmp_path, case):
    """plan.md, rendered again by autotune, holds the lines of the cost the benchmark prices."""
    bench = _bench()
    run = bench.plan_and_tune(tmp_path / case, *bench.CASES[case])
    cost = bench.priced(run, 0)  # the demo holds no clips out
    tuned = bench.read_tune_record(run)
    plan = (run / "plan.md").read_text("utf-8")
    lines = compare_cost_lines(cost, tuned.duration.steps, tuned.duration.step_s, 1)
    assert "\n".join(lines) in plan
    assert cost.checkpoints == 8 and cost.prompts == 2
    renders = cost.render_s()
    assert renders is not None and renders > 0
    assert (
        f"+ one model load {clock(cost.load_s)} = {clock(renders)}, {pct(cost.share(renders))} of the "
        "training GPU time"
    ) in plan
    # with four clips held out, the benchmark's row is the same arithmetic
    row = bench.measure_run(run, 4)
    priced = bench.priced(run, 4)
    assert row["forward_passes"] == 2 * priced.samples * 5 * (8 + 1)
    assert row["loss_share"] == round(priced.share(priced.loss_s()), 4)


def test_the_render_line_says_what_the_tournament_renders_and_the_loads():
    cost = cc.compare_cost(_config(), _duration(), 4, 1)
    line = next(x for x in compare_cost_lines(cost, 2000, 2.0, 1) if x.startswith("- tournament renders"))
    assert line == (
        f"- tournament renders: (base + 5) x 3 prompts (one per eval category) x ~{cost.video_s:.1f} s "
        "a short clip (17 frames at 480x256, 15 inference steps; the run's validation video, 89 frames "
        "at 960x544, ~66 s), all in one process (each checkpoint's LoRA swapped in place), "
        f"+ one model load {clock(120.0)} = {clock(cost.render_s())}, {pct(cost.share(cost.render_s()))} of the training GPU time"
    )
    # the load is most of it: what the excess line names when not even one checkpoint fits
    heavy = cc.compare_cost(_config(), _duration(load_s=600.0), 4, 1)
    assert heavy.most_checkpoints(cc.TOURNAMENT_TARGET, whole=True) == 0
    assert f"(the renders' one model load alone is {pct(heavy.share(600.0))})" in _text(heavy)
