"""`ltx-wizard status RUN`: one block, --json, --watch, for live, finished, failed (each class)
and stopped runs built from the trainer's real log format."""

from __future__ import annotations

import json

import pytest

from ltx_wizard.cli import main
from tests.monitor_runs import FAILURES, end, failed_launch, make_run, sample_log, start_live


def status(capsys, *argv) -> tuple[int, str, str]:
    code = main(["status", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


def test_finished_run_prints_its_block_and_writes_the_summary(tmp_path, capsys):
    run = make_run(tmp_path, sample_log("ok_single_gpu_cols250"), checkpoints=((50, True),), samples=(50,))
    code, out, _ = status(capsys, run)
    assert code == 0
    assert "Training: finished" in out and "Step 50 / 50 (100%)" in out
    assert "lora_weights_step_00050.safetensors (step 50, with its training state)" in out
    assert "step_000050_1.mp4" in out
    assert f"Summary: {run / 'run-summary.md'}" in out
    summary = (run / "run-summary.md").read_text()
    assert "**Final checkpoint:**" in summary and "0.2437 at step 20" in summary
    assert "1.9 minutes" in summary and "load_checkpoint:" in summary
    assert "ltx_pipelines.ti2vid_one_stage" in summary and "--lora" in summary
    code, out, _ = status(capsys, run)  # written once: not again while the log is unchanged
    assert "Summary:" not in out


@pytest.mark.parametrize("case", list(FAILURES))
def test_failed_runs_print_cause_and_advice_as_json(tmp_path, capsys, case):
    sample, words = FAILURES[case]
    run = make_run(tmp_path, sample_log(sample))
    code, out, _ = status(capsys, run, "--json")
    doc = json.loads(out)
    assert code == 0 and words in doc["diagnosis"]["cause"]
    assert doc["diagnosis"]["advice"]
    assert doc["state"] == ("finished" if case == "nan" else "failed")


def test_live_run_shows_pid_and_start_time(tmp_path, capsys):
    run = make_run(
        tmp_path, sample_log("ok_single_gpu_cols250").split("INFO     🎥 Validation samples for step 50")[0]
    )
    proc = start_live(run)
    try:
        code, out, _ = status(capsys, run)
    finally:
        end(proc)
    assert code == 0 and f"Training: live: pid {proc.pid}, started 20" in out
    # (50 - 40) steps x 1.555 s; the trainer's "Total Time: 0h 0m" is too coarse to prefer
    assert (
        "ETA: ~16s (steady pace; validation and checkpoint pauses not counted)  |  1.56 s/step "
        "(steady)" in out
    )


def test_stopped_run_with_checkpoints_offers_resume(tmp_path, capsys):
    run = make_run(
        tmp_path,
        sample_log("ok_single_gpu_cols250").split("INFO     🎥 Validation samples for step 50")[0],
        checkpoints=((20, True), (40, False)),
    )
    code, out, _ = status(capsys, run, "--json")
    doc = json.loads(out)
    assert doc["state"] == "stopped" and doc["resumable"]
    assert doc["checkpoints"][0]["step"] == 40 and doc["checkpoints"][0]["training_state"] is None


def test_a_dead_pid_file_reads_as_stopped_not_live(tmp_path, capsys):
    run = make_run(tmp_path, sample_log("ok_single_gpu_cols250").split("INFO     🎥")[0])
    proc = start_live(run)
    end(proc)
    code, out, _ = status(capsys, run)
    assert "Training: stopped" in out


def test_watch_prints_json_lines_until_the_run_is_not_live(tmp_path, capsys):
    run = make_run(tmp_path, sample_log("oom_cols80"))
    code, out, _ = status(capsys, run, "--watch", "--json", "--interval", "0.2")
    assert code == 0 and json.loads(out.strip().splitlines()[-1])["state"] == "failed"


def test_not_a_run_folder_is_one_line_and_exit_2(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    code, out, err = status(capsys, tmp_path / "empty")
    assert code == 2 and out == ""
    assert err.startswith("ltx-wizard: ") and err.count("\n") == 1 and "not a run folder" in err
    code, _, err = status(capsys, tmp_path / "missing")
    assert code == 2 and "no such folder" in err
    with pytest.raises(SystemExit) as exc:  # argparse's own exit, one line too
        status(capsys, tmp_path / "empty", "--interval", "0")
    assert exc.value.code == 2 and "--interval 0 is outside" in capsys.readouterr().err


def test_a_run_whose_clips_were_never_encoded_is_told_to_preprocess_not_to_edit_config(tmp_path, capsys):
    # planned from clips, launched before `ltx-wizard preprocess RUN` wrote the data root: the
    # trainer's schema names preprocessed_data_root, and the advice once was "fix that key"
    log = (
        "Error: Invalid configuration data: 1 validation error for LtxTrainerConfig\n"
        "data.preprocessed_data_root\n"
        "  Value error, Dataset path does not exist: /clips/.precomputed [type=value_error, "
        "input_value='/clips/.precomputed', input_type=str]\n"
    )
    run = make_run(tmp_path, log)
    (run / "preprocess.json").write_text(json.dumps({"one_sample_done": True, "full_done": False}))
    code, out, _ = status(capsys, run, "--json")
    diagnosis = json.loads(out)["diagnosis"]
    assert diagnosis["kind"] == "not_encoded" and "does not exist" in diagnosis["cause"]
    assert f"ltx-wizard preprocess {run}" in diagnosis["advice"][0]
    assert "fix that key" not in " ".join(diagnosis["advice"]) and diagnosis["changes"] == {}
    (run / "preprocess.json").write_text(json.dumps({"one_sample_done": True, "full_done": True}))
    code, out, _ = status(capsys, run, "--json")  # encoded after all: the trainer's own words
    assert json.loads(out)["diagnosis"]["kind"] == "config"


def test_a_live_run_shows_plan_mds_estimate_beside_its_eta_and_what_each_counts(tmp_path, capsys):
    # the Monitor's ETA and plan.md's estimate differ: each says what it leaves out
    from ltx_wizard.core.tuning.duration import Duration
    from ltx_wizard.core.tuning.results import AutotuneSummary
    from ltx_wizard.core.tuning.tune_record import TuneRecord, write_tune_record

    run = make_run(
        tmp_path, sample_log("ok_single_gpu_cols250").split("INFO     🎥 Validation samples for step 50")[0]
    )
    duration = Duration(steps=50, step_s=1.5, passes=2, videos=1, video_s=30.0, load_s=60.0)
    write_tune_record(
        run,
        TuneRecord(
            summary=AutotuneSummary(trials=[], winner=None, config_patched=False),
            config_text="",
            duration=duration,
        ),
    )
    proc = start_live(run)
    try:
        code, out, _ = status(capsys, run)
    finally:
        end(proc)
    assert (
        "Estimate in plan.md: about 3 min for the whole run (load, 50 steps, 2 validation passes, "
        "0 checkpoint saves, from autotune's trials); the ETA counts what is left of this launch" in out
    )
    assert "ETA: ~16s (steady pace; validation and checkpoint pauses not counted)" in out


def test_before_the_first_step_line_the_eta_is_plan_mds_estimate(tmp_path, capsys):
    # it read "measuring step time" through the load and the first validation: the same
    # estimate plan.md states (load, steps, validation passes, saves) gives it, less the time run
    from ltx_wizard.core.tuning.duration import Duration
    from ltx_wizard.core.tuning.results import AutotuneSummary
    from ltx_wizard.core.tuning.tune_record import TuneRecord, write_tune_record

    log = sample_log("ok_single_gpu_cols250").split("INFO     Step 20/50")[0]
    run = make_run(tmp_path, log, steps=2000, ck_interval=250, val_interval=250)
    duration = Duration(2000, 2.0, 9, 2, 60.0, 304.0, 30, denoise_step_s=0.0, saves=8)
    assert duration.total_s == 5400.0  # 4000 + 9 x 2 x 60 + 8 x 2 + 304
    summary = AutotuneSummary(trials=[], winner=None, config_patched=False)
    write_tune_record(run, TuneRecord(summary=summary, config_text="", duration=duration))
    proc = start_live(run)
    try:
        code, out, _ = status(capsys, run)
    finally:
        end(proc)
    assert code == 0
    assert (
        "ETA: ~1h 30m (autotune's estimate, as in plan.md: load, steps, validation passes, "
        "checkpoint saves)" in out
    )
    assert "Estimated duration: about 1 h 30 min (load, 2000 steps, 9 validation passes, 8 " in "\n".join(
        duration.lines()
    )


def test_a_launch_that_dies_before_the_trainer_says_why(model_tree, capsys):
    """launch.sh dies at `exec uv` (no uv on PATH): status names that, read from train.log."""
    run = failed_launch(model_tree(sim=None))
    capsys.readouterr()
    code, out, _ = status(capsys, run)
    assert code == 0
    assert "Training: failed (launch.sh stopped before the trainer started)" in out
    assert "Failure (launch): launch.sh could not start the trainer: `uv` is not on its PATH" in out
    assert "exec: uv: not found" in out and "stopped (no trainer process)" not in out
    code, out, _ = status(capsys, run, "--json")
    assert json.loads(out)["diagnosis"]["kind"] == "launch"


def test_a_launch_whose_trainer_folder_is_gone_says_why(model_tree, capsys):
    """launch.sh's `cd` into the trainer folder fails (moved since the plan): the cause is named."""
    box = model_tree(sim=None)
    run = failed_launch(box, trainer_gone=True)
    capsys.readouterr()
    code, out, _ = status(capsys, run)
    trainer = box.checkout.resolve() / "packages" / "ltx-trainer"
    assert "Training: failed (launch.sh stopped before the trainer started)" in out
    assert (
        f"Failure (launch): launch.sh stopped before the trainer started: cd: {trainer}: No such file" in out
    )
