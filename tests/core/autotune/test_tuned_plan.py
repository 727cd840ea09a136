"""After autotune, plan.md and config.yaml say what will run: the settings as tuned, the whole
diff against the shipped file, every trial with its reason, a duration estimate, and a mark on
each line autotune changed (the shipped comments kept)."""

from __future__ import annotations

import re

from test_autotune_engine import autotune_json, plan_run

RESULTS = "## Autotune results"


def _shipped(tmp_path):
    return (tmp_path / "LTX-2" / "packages" / "ltx-trainer" / "configs" / "t2v_lora.yaml").read_text()


def test_an_allowed_batch_change_rescales_steps_and_the_plan_says_so(tmp_path, capsys):
    run_dir = plan_run(tmp_path, "h100", samples=4)
    code, data = autotune_json(capsys, run_dir, "h100", "--allow-batch-change")
    assert code == 0 and data["config_patched"]
    config = (run_dir / "config.yaml").read_text()
    assert "  batch_size: 4  # ltx-wizard: autotune (was 1)\n" in config
    assert re.search(r"\n  steps: 500  # ltx-wizard: autotune.*\(was 2000\)\n", config)
    comments = [line.strip() for line in _shipped(tmp_path).splitlines() if line.strip().startswith("#")]
    assert all(c in config for c in comments)  # the shipped comments stay
    plan = (run_dir / "plan.md").read_text()
    assert "for 500 steps" in plan and "| Steps | `500` |" in plan
    assert "| Batch size per GPU | `4` |" in plan and "| Effective batch | 4 " in plan
    assert "byte for byte" not in plan  # no claim that only the paths differ
    assumptions = plan[plan.index("## Assumptions") :].split("\n## ")[0]
    assert (
        "After autotune: batch x accumulation 1 -> 4 per GPU (an allowed batch change), so "
        "optimization.steps 2000 -> 500."
    ) in assumptions
    diff = plan[plan.index("```diff") :]
    assert "\n-  batch_size: 1\n" in diff and "\n+  batch_size: 4  # ltx-wizard: autotune (was 1)\n" in diff
    assert "\n-  steps: 2000\n" in diff
    assert "-  model_path:" in diff  # the plan's own changes are in the same, full diff
    results = plan[plan.index(RESULTS) : plan.index("## Outputs")]
    for trial in data["trials"]:
        assert f"| {trial['index']} | {trial['change']} |" in results
    assert "--allow-batch-change" not in results and "keeps the samples seen" in results
    cost = plan[plan.index("## Cost and time") :]
    step = next(t["step_time_s"] for t in data["trials"] if t["index"] == data["winner"])
    assert "an estimate" in cost and f"{step:.2f} s/step measured x 500 steps" in cost
    # the intervals are rescaled with the steps: as many validation passes and checkpoints
    assert (
        len(
            re.findall(
                r"\n  interval: 62  # ltx-wizard: autotune, rescaled with the steps "
                r"\(was 250\)\n",
                config,
            )
        )
        == 2
    )  # validation and checkpoints
    assert "validation: 9 passes" in cost  # at step 0, 62, ..., 496: as planned (0, 250, ..., 2000)
    assert "load, final save and shutdown:" in cost and "measured after the sanity check" not in plan


def test_by_default_the_batch_trial_is_not_run_and_the_schedule_stays(tmp_path, capsys):
    run_dir = plan_run(tmp_path, "h100", samples=4)
    planned = (run_dir / "config.yaml").read_text()
    code, data = autotune_json(capsys, run_dir, "h100")
    assert code == 0
    batch = next(t for t in data["trials"] if t["change"].startswith("batch_size 1 -> 2"))
    assert batch["outcome"] == "skipped" and "--allow-batch-change" in batch["reason"]
    assert (run_dir / "config.yaml").read_text() == planned  # the baseline won: nothing marked
    plan = (run_dir / "plan.md").read_text()
    assert plan.count(RESULTS) == 1 and "autotune kept the planned settings" in plan
    assert "| Batch size per GPU | `1` |" in plan and "| Steps | `2000` |" in plan
    assert "x 2000 steps" in plan and "validation: 9 passes" in plan  # 0, 250, ..., 2000


def test_a_second_tuning_replaces_the_mark_and_keeps_line_endings_and_values():
    from ltx_wizard.core.io.yaml_marks import mark_changed

    text = "optimization:\r\n  batch_size: 2  # per GPU\r\n  steps: 10\r\n"
    once = mark_changed(text, {"optimization.batch_size": "autotune (was 1)"})
    assert (
        once
        == "optimization:\r\n  batch_size: 2  # per GPU  # ltx-wizard: autotune (was 1)\r\n  steps: 10\r\n"
    )
    twice = mark_changed(once, {"optimization.batch_size": "autotune (was 2)"})
    assert twice.count("ltx-wizard") == 1 and "(was 2)" in twice


def test_a_shipped_comment_about_the_old_value_no_longer_reads_as_about_the_new_one():
    # the low-VRAM file says "# Using 8-bit AdamW ..." above the optimizer and the look-alike
    # "# 8-bit states save memory" after it: after autotune picks adamw, neither may describe it
    from ltx_wizard.core.autotune.outputs.tuned_config import tuned_config
    from ltx_wizard.core.tuning.headroom import TrainSettings

    planned = (
        "optimization:\n"
        "  # Using 8-bit AdamW to reduce optimizer state memory by ~75%\n"
        '  optimizer_type: "adamw8bit"   # 8-bit states save memory\n'
        "  batch_size: 1  # per GPU\n"
    )
    tuned = tuned_config(
        planned,
        {"optimization.optimizer_type": "adamw"},
        TrainSettings("int8-quanto", "adamw8bit", 1, 1, True),
        TrainSettings("int8-quanto", "adamw", 1, 1, True),
    )
    line = next(x for x in tuned.text.splitlines() if "optimizer_type" in x)
    assert line.startswith('  optimizer_type: "adamw"  # ltx-wizard: autotune (was adamw8bit)')
    assert 'shipped comment, about the old value: "8-bit states save memory"' in line
    assert "the comment above describes the shipped adamw8bit" in line
    assert "# Using 8-bit AdamW to reduce optimizer state memory by ~75%" in tuned.text  # kept
    assert "  batch_size: 1  # per GPU\n" in tuned.text  # an unchanged line keeps its comment


def test_the_validation_estimate_holds_no_model_load_or_quantization_per_pass(tmp_path, capsys):
    # on the 32GB tier the winner's confirmation loads Gemma in 8-bit, builds and quantizes the
    # transformer before it validates; plan.md once counted all of that in each of its passes
    import json

    from ltx_wizard.demo.sim import cost_model
    from ltx_wizard.core.io.yaml_patch import load_yaml

    run_dir = plan_run(tmp_path, "rtx5090", samples=4)
    code, data = autotune_json(capsys, run_dir, "rtx5090")
    assert code == 0 and data["confirmation"]["outcome"] == "ok"
    duration = json.loads((run_dir / "autotune.json").read_text())["duration"]
    config = load_yaml((run_dir / "config.yaml").read_text())
    # what the simulated trainer spends on one confirmation video (4 inference steps)
    one_video = cost_model.validation_video_s(
        {**config, "validation": {**config["validation"], "inference_steps": 4}}, "NVIDIA GeForce RTX 5090"
    )
    load = cost_model.QUANTIZE_S + cost_model.TRANSFORMER_LOAD_S
    assert duration["video_s"] < one_video * 1.5 + 5  # the video, give or take the step timing
    assert duration["video_s"] < load  # before: load + quantization + Gemma + the video
    cost = (run_dir / "plan.md").read_text().split("## Cost and time")[1]
    assert f"one video measured at {duration['video_s']:.0f} s with 4 inference steps" in cost


def test_the_autotune_cli_prints_the_command_launch_sh_runs(tmp_path, capsys):
    # its "Launch:" line once showed another command than the one launch.sh runs
    import shlex

    from ltx_wizard.cli import main
    from ltx_wizard.core.io.run_meta import read_run_meta

    run_dir = plan_run(tmp_path, "h100")
    capsys.readouterr()
    assert main(["autotune", str(run_dir), "--simulate", "h100"]) == 0
    out = capsys.readouterr().out
    spec = read_run_meta(run_dir).launch
    line = next(x for x in out.splitlines() if "launch.sh runs:" in x)
    assert shlex.join(spec.argv) in line and f"cd {shlex.quote(str(spec.cwd))}" in line
    assert shlex.join(spec.argv) in (run_dir / "launch.sh").read_text()
    assert f"Start training:\n  bash {run_dir}/launch.sh" in out or (f"  bash {run_dir}/launch.sh" in out)
    cost = (run_dir / "plan.md").read_text().split("## Cost and time")[1]
    assert "The Monitor shows this estimate until the first step line" in cost
