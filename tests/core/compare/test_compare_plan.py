"""compare's plan: the steps picked, where the held-out latents come from, and the programs'
command lines as the trainer's environment runs them (uv run in the checkout's ltx-trainer)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.compare import compare_plan
from ltx_wizard.core.compare.compare_plan import Kept, held_out_source, heldout_args, pick
from ltx_wizard.core.compare.health_record import SCRIPT as HEALTH_SCRIPT
from ltx_wizard.core.preprocess.held_out import HeldOut

KEPT = [Kept(s, Path(f"/o/checkpoints/lora_weights_step_{s:05d}.safetensors")) for s in (400, 200, 600)]


def test_pick_all_and_some_steps_oldest_first():
    assert [k.step for k in pick(KEPT, "all")] == [200, 400, 600]
    assert [k.step for k in pick(KEPT, "600, 200,600")] == [200, 600]


@pytest.mark.parametrize(
    ("wanted", "said"),
    [
        ("1,400", "no checkpoint of step 1 (kept: 200, 400, 600)"),
        ("200,x", "'x' is not a step"),
        ("-200", "'-200' is not a step"),
        ("²", "'²' is not a step"),
        ("300", "no checkpoint of step 300"),
    ],
)
def test_a_bad_list_is_refused_naming_it(wanted, said):
    with pytest.raises(UsageError, match=said.replace("(", r"\(").replace(")", r"\)")):
        pick(KEPT, wanted)


def test_no_checkpoint_at_all_is_refused():
    with pytest.raises(UsageError, match="kept no checkpoint"):
        pick([], "all")


def test_where_the_held_out_latents_come_from(tmp_path):
    root = tmp_path / "holdout" / ".precomputed"
    file = tmp_path / "holdout.jsonl"
    assert held_out_source(None)[1].startswith("no clips were held out")
    assert held_out_source(HeldOut(note="no clips were held out (x)")) == (
        None,
        "no clips were held out (x)",
        0,
    )
    waiting = HeldOut(file=file, root=root, samples=("a.pt",))
    assert "ltx-wizard preprocess RUN" in held_out_source(waiting)[1]
    none = HeldOut(file=file, root=root, samples=("a.pt",), done=True, note="1 of 1 not encoded")
    assert held_out_source(none) == (None, "none of the held-out clips was encoded (1 of 1 not encoded)", 0)
    six = tuple(f"{i}.pt" for i in range(6))
    assert held_out_source(HeldOut(file=file, root=root, samples=six, done=True, encoded=six)) == (
        root,
        None,
        4,
    )


def _heldout_parser(monkeypatch):
    """The real program's own argument parser (the program is loaded from its file, as a test may)."""
    spec = importlib.util.spec_from_file_location("heldout_loss_under_test", compare_plan.HELDOUT_SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module._args


def test_the_real_programs_run_by_uv_in_the_trainer_folder(tmp_path, monkeypatch):
    run, trainer = tmp_path / "run", tmp_path / "LTX-2" / "packages" / "ltx-trainer"
    chosen = pick(KEPT, "all")
    health = compare_plan._program(run, "h", compare_plan.health_args(run, chosen), trainer, None, "/bin/uv")
    assert health.argv[:4] == ("/bin/uv", "run", "python", str(HEALTH_SCRIPT)) and health.cwd == trainer
    assert health.argv[4:6] == ("--out", str(run / "outputs" / "compare" / "lora-health.json"))
    assert health.log == run / "logs" / "compare-lora-health.log"
    args = heldout_args(run, tmp_path / "held", 4, chosen)
    loss = compare_plan._program(run, "l", args, trainer, None, "/bin/uv")
    assert (
        loss.argv[3] == str(compare_plan.HELDOUT_SCRIPT)
        and loss.log == run / "logs" / "compare-heldout-loss.log"
    )
    parsed = _heldout_parser(monkeypatch)(list(loss.argv[4:]))  # read as the program reads them
    assert (parsed.config, parsed.held_out) == (run / "config.yaml", tmp_path / "held")
    assert parsed.out_dir == run / "outputs" / "compare" and parsed.base
    assert (parsed.sample, parsed.seed, parsed.sigmas) == (4, 42, "0.1,0.3,0.5,0.7,0.9")
    assert parsed.checkpoints == [k.path for k in chosen]
    with pytest.raises(UsageError, match="uv is not on PATH"):
        compare_plan._program(run, "l", args, trainer, None, None)


def _render_parser(monkeypatch):
    """tournament_render.py's own argument parser, loaded from its file (its siblings beside it)."""
    from ltx_wizard.core.evaluation.tournament_program import SCRIPT

    spec = importlib.util.spec_from_file_location("tournament_render_under_test", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    return module._args


def test_with_renders_the_loss_rides_on_the_tournaments_process_for_the_rows_still_missing(
    tmp_path, monkeypatch
):
    run, root = tmp_path / "run", tmp_path / "held"
    chosen = pick(KEPT, "all")
    plan = compare_plan.ComparePlan(run, chosen, root, None, 3, 0, (), (), loss_in_renders=True)
    args = plan.loss_args([None, chosen[1]])
    parsed = _render_parser(monkeypatch)(["--config", "c.yaml", "--out-dir", "r", *args, "base"])
    assert (parsed.loss_config, parsed.held_out) == (run / "config.yaml", root)
    assert parsed.loss_out_dir == run / "outputs" / "compare"
    assert (parsed.sample, parsed.seed, parsed.sigmas) == (3, 42, "0.1,0.3,0.5,0.7,0.9")
    assert parsed.loss_rows == "base,step-400"
    # nothing left to compute, no loss in the renders, or no held-out clips: no loss arguments
    assert plan.loss_args([]) == []
    assert compare_plan.ComparePlan(run, chosen, root, None, 3, 0, (), ()).loss_args([None]) == []


def test_the_loss_sample_is_the_one_plan_md_prices_from_the_runs_records(tmp_path, monkeypatch):
    """heldout_loss.py --sample: compare_cost.loss_samples on config.yaml, autotune.json's duration and
    the planned GPUs; 4 (clips permitting) where autotune left no duration."""
    from types import SimpleNamespace

    from ltx_wizard.core.plan import compare_cost as cc
    from ltx_wizard.core.tuning.duration import Duration

    config = {
        "model": {"training_mode": "lora"},
        "optimization": {"steps": 2000, "batch_size": 1, "enable_gradient_checkpointing": True},
        "checkpoints": {"interval": 200, "keep_last_n": -1},
    }
    duration = Duration(2000, 12.0, 9, 1, 40.0, 300.0, 30, denoise_step_s=1.0, saves=5)
    six = tuple(f"c{i}.mp4" for i in range(6))
    held = HeldOut(file=tmp_path / "h.jsonl", root=tmp_path, samples=six, done=True, encoded=six)
    tuned = SimpleNamespace(duration=duration)
    monkeypatch.setattr(compare_plan, "read_tune_record", lambda run: tuned)
    monkeypatch.setattr(
        compare_plan, "read_record", lambda run: SimpleNamespace(schedule=SimpleNamespace(num_gpus=1))
    )
    assert compare_plan.loss_sample(tmp_path, config, held) == cc.loss_samples(config, duration, 6, 1) == 3
    tuned.duration = None  # autotune measured nothing: the most the clips permit
    assert compare_plan.loss_sample(tmp_path, config, held) == 4
    two = HeldOut(file=tmp_path / "h.jsonl", root=tmp_path, samples=six[:2], done=True, encoded=six[:2])
    assert compare_plan.loss_sample(tmp_path, config, two) == 2
    assert held_out_source(held, 3) == (tmp_path, None, 3)
