"""The wizard's readers on output the real trainer printed (tests/data/trainer_logs/real_*).

Recorded from Lightricks/LTX-2 @ 400fd31 (scripts/train.py, unpatched) on CPU with tiny stand-in
models, at the widths launch.sh (COLUMNS=250) and an 80-column terminal give; paths anonymised by
scripts/anonymise_trainer_log.py. These pin what the composed GPU-only samples cannot: the
trainer's exact wording, wrapping and source columns.
"""

from __future__ import annotations

import json

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.trainer_output.line_events import (
    CheckpointSaved,
    ConfigError,
    MissingConfig,
    OomError,
    Statistics,
    StepEvent,
    Traceback,
    TrainerPhase,
    ValidationSaved,
)
from tests.monitor_runs import MARKER, make_run, sample_log
from tests.core.trainer_output.test_line_parser import of, parse_file


def status_json(run, capsys) -> dict:
    capsys.readouterr()
    main(["status", str(run), "--json"])
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(
    ("name", "losses"),
    [("real_t2v_lora_cols250.txt", [8.1966, 6.4209]), ("real_t2v_lora_cols80.txt", [8.2174, 6.4205])],
)
def test_a_real_run_gives_its_phases_steps_checkpoint_and_statistics(name, losses):
    events = parse_file(name)
    phases = [e.phase for e in of(events, TrainerPhase)]
    # the int8-quanto run quantizes; the 80-column one ran autotune's winner (quantization null)
    assert phases == (
        ["text_encoder", "prompts", "loading", "quantizing", "training"]
        if "cols250" in name
        else ["text_encoder", "prompts", "loading", "training"]
    )
    steps = of(events, StepEvent)
    assert [(s.step, s.total, s.loss) for s in steps] == [(20, 40, losses[0]), (40, 40, losses[1])]
    assert [s.lr for s in steps] == [5.5e-05, 1e-05]
    assert [v.step for v in of(events, ValidationSaved)] == [0]
    # trainer.py LtxvTrainer._save_checkpoint logs the path relative to output_dir, rejoined
    # whole where 80 columns fold it
    assert [(c.step, c.path) for c in of(events, CheckpointSaved)] == [
        (40, "checkpoints/lora_weights_step_00040.safetensors")
    ]
    (stats,) = of(events, Statistics)
    assert stats.peak_gpu_memory_gb == 0.0 and stats.num_processes is None
    # the trainer's ERROR lines about nvidia-smi on a CPU box are not failures
    assert not of(events, Traceback) and not of(events, OomError)


def test_status_of_a_real_finished_run_reads_every_figure(tmp_path, capsys):
    run = make_run(tmp_path, sample_log("real_t2v_lora_cols80"), steps=40, checkpoints=((40, True),))
    got = status_json(run, capsys)
    assert (got["state"], got["step"], got["total_steps"]) == ("finished", 40, 40)
    assert got["recent_losses"][-1] == 6.4205 and got["diagnosis"] is None
    # the attention backends line folds mid-word at 80 columns ("...>MA" / "TH]"): rejoined
    assert got["attention"] == (
        "self: SDPA[CUDNN_ATTENTION>FLASH_ATTENTION>EFFICIENT_ATTENTION>MATH], "
        "masked: SDPA[CUDNN_ATTENTION>FLASH_ATTENTION>EFFICIENT_ATTENTION>MATH]"
    )


def test_the_folded_attention_line_is_found_before_the_tail_of_a_long_log_too(tmp_path, capsys):
    # A long run's start lies before the tail the monitor parses in full: the history reader
    # must bring the folded lines of the attention record along with its first line.
    head, rest = sample_log("real_t2v_lora_cols80").split("INFO     Step 20/40", 1)
    step = "INFO     Step {0}/9000 - Loss: 0.5, LR: 1.00e-04, Time/Step: 0.10s, Total Time: 0h 1m\n"
    filler = "".join(step.format(n) for n in range(20, 9000, 20))
    while len(filler) < (300 << 10):
        filler += filler
    run = make_run(tmp_path, head + filler + "INFO     Step 20/40" + rest, steps=9000)
    got = status_json(run, capsys)
    assert got["attention"] == (
        "self: SDPA[CUDNN_ATTENTION>FLASH_ATTENTION>EFFICIENT_ATTENTION>MATH], "
        "masked: SDPA[CUDNN_ATTENTION>FLASH_ATTENTION>EFFICIENT_ATTENTION>MATH]"
    )


def test_real_resume_under_gradient_accumulation_reads_as_one_finished_run(tmp_path, capsys):
    # Two launches of launch.sh in one train.log: 40 steps, then a resume to 60 from the
    # step-40 checkpoint, both with gradient_accumulation_steps 2 (the trainer prints a
    # "Step 0/40" micro-step line and each logged step twice).
    run = make_run(tmp_path, None, steps=60, checkpoints=((40, True), (60, True)))
    (run / "logs" / "train.log").write_text(
        sample_log("real_resume_accum_train_log_cols250"), encoding="utf-8"
    )
    got = status_json(run, capsys)
    assert (got["state"], got["step"], got["total_steps"]) == ("finished", 60, 60)
    assert got["recent_losses"][-1] == 7.4715 and got["diagnosis"] is None
    assert [c["step"] for c in got["checkpoints"]] == [60, 40]  # newest first


@pytest.mark.parametrize(
    ("name", "fields"),
    [
        (
            "real_config_errors_cols80",
            ["model.model_path: Field required", "optimisation: Extra inputs are not permitted"],
        ),
        ("real_config_type_error_cols80", ["optimization.steps: Input should be a valid integer"]),
    ],
)
def test_a_real_config_error_names_each_field(tmp_path, capsys, name, fields):
    # train.py main prints it with typer.echo: plain lines after rich's wrapped WARNING
    (error,) = of(parse_file(f"{name}.txt"), ConfigError)
    assert error.text.startswith("Error: Invalid configuration data:")
    got = status_json(make_run(tmp_path, sample_log(name)), capsys)
    assert got["state"] == "failed" and got["diagnosis"]["kind"] == "config"
    assert all(f in got["diagnosis"]["cause"] for f in fields)


def test_a_real_missing_config_names_the_file(tmp_path, capsys):
    (missing,) = of(parse_file("real_missing_config_cols80.txt"), MissingConfig)
    assert missing.path == "/data/ltx-wizard/r1/nope/config.yaml"
    got = status_json(make_run(tmp_path, sample_log("real_missing_config_cols80")), capsys)
    assert got["diagnosis"]["kind"] == "missing_file"


def test_a_real_crash_in_validation_reports_the_error_line(tmp_path, capsys):
    (tb,) = of(parse_file("real_validation_crash_cols250.txt"), Traceback)
    assert tb.last_line == "RuntimeError: mat1 and mat2 shapes cannot be multiplied (2268x128 and 8x32)"
    got = status_json(make_run(tmp_path, sample_log("real_validation_crash_cols250"), steps=3), capsys)
    assert got["diagnosis"]["kind"] == "crash" and "mat1 and mat2" in got["diagnosis"]["cause"]


def test_no_cuda_device_is_told_as_such_with_what_to_check(tmp_path, capsys):
    got = status_json(make_run(tmp_path, sample_log("real_gemma_8bit_on_cpu_cols250")), capsys)
    diagnosis = got["diagnosis"]
    assert diagnosis["kind"] == "no_cuda"
    assert diagnosis["cause"].startswith("ValueError: 8-bit Gemma quantization requires a CUDA")
    assert any("nvidia-smi" in a for a in diagnosis["advice"])
    assert diagnosis["changes"] == {}  # turning 8-bit off would only fail later: no GPU at all


def _summary_duration(run) -> str:
    text = (run / "run-summary.md").read_text(encoding="utf-8")
    return next(line for line in text.splitlines() if line.startswith("**Duration:**"))


def test_the_summary_counts_every_launch_of_a_resumed_run(tmp_path, capsys):
    run = make_run(tmp_path, None, steps=60, checkpoints=((40, True), (60, True)))
    (run / "logs" / "train.log").write_text(
        sample_log("real_resume_accum_train_log_cols250"), encoding="utf-8"
    )
    status_json(run, capsys)
    # 0.2 minutes for steps 0-40, then 0.1 for the resume to 60 (each launch's statistics)
    assert _summary_duration(run) == (
        "**Duration:** 0.3 minutes of training over 2 launches (the trainer's figures)"
    )


def test_a_launch_that_crashed_is_named_not_counted_even_far_before_the_tail(tmp_path, capsys):
    # The first launch ran out of memory after a long stretch of steps (its lines lie before the
    # tail the monitor parses in full), the second resumed and finished.
    first = sample_log("real_t2v_lora_cols250").replace(
        " - Total time: 1.1 minutes", " - Total time: 7.5 minutes"
    )
    step = "INFO     Step {0}/40 - Loss: 0.5, LR: 1.00e-04, Time/Step: 0.10s, Total Time: 0h 1m\n"
    filler = "".join(step.format(n) for n in range(20, 40, 20)) * 6000
    log = (
        MARKER.format(pid=1)
        + first
        + MARKER.format(pid=2)
        + sample_log("oom_cols80")
        + filler
        + MARKER.format(pid=3)
        + sample_log("real_t2v_lora_cols250")
    )
    run = make_run(tmp_path, None, steps=40, checkpoints=((40, True),))
    (run / "logs" / "train.log").write_text(log, encoding="utf-8")
    assert len(log.encode()) > (300 << 10)
    status_json(run, capsys)
    assert _summary_duration(run) == (
        "**Duration:** 8.6 minutes of training in 2 of 3 launches (the trainer's figures); "
        "1 launch stopped before printing its time, not counted"
    )
