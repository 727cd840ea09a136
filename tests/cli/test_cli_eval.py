"""`ltx-wizard eval RUN` end to end on the simulated trainer and ltx-pipelines: tiny real renders,
laid out per category, mapped back to their prompts by index, with and without the LoRA."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.evaluation.job import read_state
from ltx_wizard.core.evaluation.keyframes import decode
from ltx_wizard.core.evaluation.summary_lines import evaluation_lines
from ltx_wizard.core.io.yaml_patch import patch_yaml_text

from ltx_wizard.demo.sim.pipelines import UNMODELLED_ENV
from ltx_wizard.demo.tiny_video import WIDTH, _colour
from tests.eval_runs import CAPTIONS, HELD, final_checkpoint, finished_run, tree
from tests.monitor_runs import MARKER, end, sample_log, start_live


@pytest.fixture(autouse=True)
def _fast_sim(monkeypatch):
    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "0")


def _eval(capsys, run, *extra, sim="h100"):
    # plan --simulate records the real trainer's launch (as the TUI's demo does not): the
    # simulated GPUs are named again, as autotune takes them
    code = main(["eval", str(run), "--yes", "--simulate", sim, *map(str, extra)])
    out, err = capsys.readouterr()
    return code, out, err


def _top_colour(path):
    """The colour of the render's upper half: the simulated renders paint the prompt's there."""
    frame = decode(path, count=1, width=WIDTH).frames[0]
    return frame.pixel(50, 4)  # off the sweeping bar (x 0-3 at frame 0) and the LoRA band


def _close(a, b, tolerance=24):
    return all(abs(x - y) <= tolerance for x, y in zip(a, b))


def test_three_categories_with_and_without_the_lora_laid_out_and_listed(model_tree, capsys):
    box = model_tree()
    run = finished_run(box, capsys)
    outside = tree(box.ws.parent)
    code, out, err = _eval(capsys, run, "--prompt", "a cat floats in space", "--production", "no")
    assert code == 0, err
    assert "In-distribution (3):" in out and "Held-out (5):" in out and "Evaluation done." in out
    eval_dir = run / "outputs" / "eval"
    assert sorted(p.name for p in eval_dir.iterdir()) == [
        "held-out",
        "in-distribution",
        "out-of-distribution",
        "prompts.json",
    ]  # no cruft
    manifest = json.loads((eval_dir / "prompts.json").read_text())
    renders = manifest["renders"]
    assert len(renders) == (3 + 1 + 5) * 2
    assert sorted(renders) == sorted(str(p.relative_to(eval_dir)) for p in eval_dir.rglob("*.mp4"))
    for name, entry in renders.items():
        # mapped back by index: the picture is the one of this file's own prompt
        assert _close(_top_colour(eval_dir / name), _colour("prompt", entry["prompt"])), name
        assert entry["seed"] == 42 and entry["made_by"] == "trainer validation"
        assert name.endswith(".base.mp4") == (not entry["lora"])
    ids = [e["prompt"] for e in renders.values() if e["category"] == "in-distribution"]
    assert set(ids) <= set(CAPTIONS)
    held = {e["prompt"] for e in renders.values() if e["category"] == "held-out"}
    assert len(held) == 5 and held <= set(HELD)
    ood = eval_dir / "out-of-distribution"
    lora, base = ood / "01_a-cat-floats-in-space.mp4", ood / "01_a-cat-floats-in-space.base.mp4"
    assert decode(lora, count=2).frames != decode(base, count=2).frames  # like for like differs
    # validate-only configs beside config.yaml; nothing written outside the run folder
    assert (run / "eval-config.yaml").is_file() and (run / "eval-config.base.yaml").is_file()
    assert str(final_checkpoint(run)) in (run / "eval-config.yaml").read_text()
    assert [p for p in tree(box.ws.parent) if not p.startswith("ws/run")] == [
        p for p in outside if not p.startswith("ws/run")
    ]
    lines = "\n".join(evaluation_lines(run))
    assert "### In-distribution (3 prompts)" in lines and "### Held-out (5 prompts)" in lines
    assert 'Seed 42: "a cat floats in space"' in lines
    assert "out-of-distribution/01_a-cat-floats-in-space.base.mp4` (without the LoRA" in lines


def test_no_held_out_set_is_said_not_invented(model_tree, capsys):
    run = finished_run(model_tree(), capsys, holdout=0)
    (run / "logs" / "train.log").write_text(MARKER.format(pid=4321) + sample_log("ok_single_gpu_cols250"))
    code, out, _ = _eval(capsys, run, "--production", "no", "--no-base")
    assert code == 0
    assert "Held-out evaluation skipped: no held-out set" in out
    assert not (run / "outputs" / "eval" / "held-out").exists()
    assert "Held-out evaluation skipped" in "\n".join(evaluation_lines(run))
    summary = (run / "run-summary.md").read_text()  # the finished run's summary lists them
    assert "## Post-training evaluation" in summary and "### In-distribution (3 prompts)" in summary
    assert "Held-out evaluation skipped" in summary
    names = json.loads((run / "outputs/eval/prompts.json").read_text())["renders"]
    assert len(names) == 3 + 3 and not any(".base." in n for n in names)  # --no-base


def test_production_renders_through_ltx_pipelines_with_the_lora(model_tree, capsys):
    run = finished_run(model_tree(), capsys, holdout=0)
    code, out, err = _eval(capsys, run, "--production", "yes", "--prompt", "a cat")
    assert code == 0, err
    assert "-> bf16: at least" in out
    renders = json.loads((run / "outputs/eval/prompts.json").read_text())["renders"]
    made = {n: e for n, e in renders.items() if e["made_by"] == "ltx-pipelines"}
    assert len(made) == 4 * 2
    assert "out-of-distribution/01_a-cat.pipelines.mp4" in made
    assert made["out-of-distribution/01_a-cat.pipelines-base.mp4"]["lora"] is False
    job = json.loads((run / "logs" / "eval-job.json").read_text())
    assert job["production"]["module"] == "ltx_pipelines.ti2vid_one_stage"


def test_fp8_is_offered_where_bf16_would_not_fit(model_tree, capsys):
    box = model_tree(sim="rtx5090")
    run = finished_run(box, capsys, holdout=0, params_b=19.0)
    code, out, err = _eval(
        capsys, run, "--production", "yes", "--no-base", "--prompt", "a cat", sim="rtx5090"
    )
    assert code == 0, err
    assert "bf16: at least 38.4 GiB per GPU (transformer 35.4 + activations at 576x576x89 0.5" in out
    assert "does not fit" in out
    assert "-> fp8-cast: at least 20.7 GiB" in out
    renders = json.loads((run / "outputs/eval/prompts.json").read_text())["renders"]
    assert renders["out-of-distribution/01_a-cat.pipelines.mp4"]["quantization"] == "fp8-cast"


def test_the_memory_check_and_the_render_agree_on_the_demos_a6000(model_tree, capsys):
    # the demo's 19 B checkpoint on an RTX A6000: the check said bf16 "fits in 46.5 GiB" and the
    # render then ran out of memory and was retried at half the size
    box = model_tree(sim="a6000")
    run = finished_run(box, capsys, holdout=0, params_b=19.0)
    code, out, err = _eval(capsys, run, "--production", "yes", "--no-base", "--prompt", "a cat", sim="a6000")
    assert code == 0, err
    assert "-> bf16: at least 38.4 GiB per GPU (transformer 35.4 + activations at 576x576x89" in out
    assert "fits in 46.5 GiB" in out
    log = (run / "logs" / "eval.log").read_text()
    assert "out of memory" not in log and "OutOfMemoryError" not in log
    renders = json.loads((run / "outputs/eval/prompts.json").read_text())["renders"]
    made = renders["out-of-distribution/01_a-cat.pipelines.mp4"]
    assert made["quantization"] == "bf16, not quantized" and made["asked_dims"] == [576, 576, 89]


def test_labels_read_the_files_and_the_pipelines_render_is_its_own(model_tree, capsys):
    from ltx_wizard.core.dataset.clip_probe import probe_clip

    run = finished_run(model_tree(), capsys, holdout=0)
    code, _, err = _eval(capsys, run, "--production", "yes", "--no-base", "--prompt", "a cat")
    assert code == 0, err
    eval_dir = run / "outputs" / "eval"
    renders = json.loads((eval_dir / "prompts.json").read_text())["renders"]
    for name, entry in renders.items():
        facts = probe_clip(eval_dir / name)
        assert entry["video_dims"] == [facts.width, facts.height, facts.frames], name
        assert entry["asked_dims"] == [576, 576, 89], name  # the run's validation size
    ood = eval_dir / "out-of-distribution"
    trainer, pipelines = ood / "01_a-cat.mp4", ood / "01_a-cat.pipelines.mp4"
    assert trainer.read_bytes() != pipelines.read_bytes()  # two programs, two renders
    assert decode(trainer, count=1).frames != decode(pipelines, count=1).frames
    lines = "\n".join(evaluation_lines(run))
    size = f"{WIDTH}x{probe_clip(trainer).height}x{probe_clip(trainer).frames} (asked for 576x576x89)"
    assert (
        f"01_a-cat.pipelines.mp4` (with the LoRA, ltx-pipelines `ltx_pipelines.ti2vid_one_stage`, {size}"
        in lines
    )
    assert "576x576x89, " not in lines


def _big_dims(run, dims):
    path = run / "config.yaml"
    path.write_text(patch_yaml_text(path.read_text(), {"validation.video_dims": dims}))


def test_out_of_memory_is_retried_once_smaller_and_said(model_tree, capsys, monkeypatch):
    run = finished_run(model_tree(), capsys, holdout=0)
    _big_dims(run, [3840, 2176, 121])
    # the check and the simulated pipelines share one memory rule, so the render fits where the
    # check said so; here it needs what the estimate leaves out, as a real render may
    monkeypatch.setenv(UNMODELLED_ENV, "74.5")
    code, out, err = _eval(capsys, run, "--production", "yes", "--no-base", "--prompt", "a cat")
    assert code == 0, err
    log = (run / "logs" / "eval.log").read_text()
    assert "out of memory at 3840x2176x121: retrying once at 1920x1088x121" in log
    assert "out of memory at 1920x1088x121: retrying once at 960x544x121" in log  # pipelines
    renders = json.loads((run / "outputs/eval/prompts.json").read_text())["renders"]
    # the sizes asked for; the simulated files themselves are tiny (their own facts)
    assert renders["out-of-distribution/01_a-cat.mp4"]["asked_dims"] == [1920, 1088, 121]
    assert renders["out-of-distribution/01_a-cat.pipelines.mp4"]["asked_dims"] == [960, 544, 121]


def test_out_of_memory_after_the_retry_fails_as_such(model_tree, capsys):
    run = finished_run(model_tree(), capsys, holdout=0)
    _big_dims(run, [7680, 4352, 121])
    code, out, _ = _eval(capsys, run, "--production", "no")
    assert code == 1
    assert "ran out of GPU memory at 3840x2176x121, also after the retry" in out
    assert read_state(run).state == "failed"
    assert sorted(p.name for p in (run / "outputs/eval").iterdir()) == ["prompts.json"]


def test_refusals_are_one_line_with_exit_2(model_tree, capsys, tmp_path, monkeypatch):
    assert main(["eval", str(tmp_path)]) == 2
    assert "is not a run folder" in capsys.readouterr().err
    run = finished_run(model_tree(), capsys, holdout=0)
    final = final_checkpoint(run)
    early = final.with_name("lora_weights_step_00500.safetensors")
    final.rename(early)
    code, _, err = _eval(capsys, run)
    assert code == 2 and "the final checkpoint (step 2000) is missing" in err and "--checkpoint" in err
    code, out, err = _eval(capsys, run, "--checkpoint", early, "--production", "no", "--no-base")
    assert code == 0, err and "step 500" in out
    assert main(["eval", str(run), "--checkpoint", str(run / "config.yaml")]) == 2
    monkeypatch.setattr(sys.stdin, "isatty", lambda: False)
    assert main(["eval", str(run), "--checkpoint", str(early)]) == 2
    assert "pass --yes" in capsys.readouterr().err
    live = start_live(run)
    try:
        code, _, err = _eval(capsys, run, "--checkpoint", early)
    finally:
        end(live)
    assert code == 2 and "still runs" in err


def test_a_background_evaluation_is_stopped_with_its_trainer(model_tree, capsys, monkeypatch):
    run = finished_run(model_tree(), capsys, holdout=0)
    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "0.05")  # slow: it is still rendering when stopped
    code, out, err = _eval(capsys, run, "--background", "--production", "no")
    assert code == 0, err and "runs in the background" in out
    deadline = time.monotonic() + 60
    while (state := read_state(run)) is None or state.child_pid is None:
        assert time.monotonic() < deadline, "the job never started its trainer"
        time.sleep(0.05)
    child = state.child_pid
    assert main(["eval", str(run), "--stop"]) == 0
    assert "evaluation stopped" in capsys.readouterr().out
    assert read_state(run).state == "stopped"
    assert subprocess.run(["kill", "-0", str(child)], capture_output=True).returncode != 0


def test_eval_says_how_long_its_renders_take_from_the_runs_duration_estimate(model_tree, capsys):
    # the same model as plan.md's estimate: each validate-only run a load and one pass of the prompts
    from ltx_wizard.core.tuning.duration import Duration
    from ltx_wizard.core.tuning.results import AutotuneSummary
    from ltx_wizard.core.tuning.tune_record import TuneRecord, write_tune_record

    run = finished_run(model_tree(), capsys, holdout=0)
    code, out, _ = _eval(capsys, run, "--production", "no", "--no-base")
    assert code == 0 and "Time: not estimated (autotune measured no validation video" in out
    duration = Duration(2000, 2.0, 9, 2, 40.0, 120.0, 30, denoise_step_s=1.0, saves=8)
    summary = AutotuneSummary(trials=[], winner=None, config_patched=False)
    write_tune_record(run, TuneRecord(summary=summary, config_text="", duration=duration))
    code, out, _ = _eval(capsys, run, "--production", "no")
    assert code == 0
    prompts = out.count("  [")  # one line per prompt, its source in brackets
    assert prompts > 0
    assert duration.validate_only_s(prompts, 2) == 2 * (120.0 + prompts * 66.0)
    minutes = round(2 * (120.0 + prompts * 66.0) / 60)
    assert (
        f"Time: about {minutes} min for the trainer's renders (2 runs, a load each (with and without "
        f"the LoRA), {prompts} video(s) x ~66 s at 30 inference steps; autotune's estimate)"
    ) in out
