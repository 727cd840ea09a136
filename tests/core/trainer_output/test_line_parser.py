"""The trainer-output parser on a corpus of realistic logs and on hand-made edge cases."""

from __future__ import annotations

import math
import runpy
from pathlib import Path

import pytest

from ltx_wizard.core.trainer_output.line_events import (
    CheckpointSaved,
    ConfigError,
    MissingConfig,
    NanLoss,
    OomError,
    Statistics,
    StepEvent,
    StopIterationError,
    Traceback,
    TrainerPhase,
    ValidationSaved,
)
from ltx_wizard.core.trainer_output.line_parser import TrainerLogParser

CORPUS = Path(__file__).resolve().parents[2] / "data" / "trainer_logs"


def parse(lines: list[str]) -> list:
    parser = TrainerLogParser()
    events = []
    for t, line in enumerate(lines):
        events += parser.feed(line, float(t))
    return events + parser.finish()


def parse_file(name: str) -> list:
    return parse((CORPUS / name).read_text(encoding="utf-8").splitlines(keepends=True))


def of(events: list, kind: type) -> list:
    return [e for e in events if isinstance(e, kind)]


@pytest.mark.parametrize(
    ("name", "time_per_step", "peak"),
    [
        ("ok_single_gpu_cols250.txt", [1.55, 1.56], 66.94),
        ("ok_wrapped_cols80.txt", [2.89, 2.91], 31.54),
    ],
)
def test_a_successful_run_yields_steps_validations_checkpoint_and_stats(name, time_per_step, peak):
    events = parse_file(name)
    steps = of(events, StepEvent)
    assert [(s.step, s.total) for s in steps] == [(20, 50), (40, 50)]
    assert [s.time_per_step_s for s in steps] == time_per_step
    assert [s.lr for s in steps] == [6e-05, 2e-05]
    assert all(s.rank is None and not math.isnan(s.loss) for s in steps)
    assert [v.step for v in of(events, ValidationSaved)] == [0, 50]
    (stats,) = of(events, Statistics)
    assert stats.peak_gpu_memory_gb == peak and stats.num_processes is None
    assert not of(events, OomError) and not of(events, Traceback) and not of(events, NanLoss)


def test_paths_folded_by_the_wrap_at_80_columns_are_rejoined_exactly():
    # trainer.py LtxvTrainer._save_checkpoint logs the path relative to output_dir
    (checkpoint,) = of(parse_file("ok_wrapped_cols80.txt"), CheckpointSaved)
    assert checkpoint.step == 50
    assert checkpoint.path == "checkpoints/lora_weights_step_00050.safetensors"
    # train.py main says a missing file with typer.echo (never wrapped by rich)
    (missing,) = of(parse_file("real_missing_config_cols80.txt"), MissingConfig)
    assert missing.path == "/data/ltx-wizard/r1/nope/config.yaml"


def test_two_gpu_run_keeps_each_rank_and_the_global_batch():
    events = parse_file("ok_two_gpu_ranks.txt")
    # trainer.py LtxvTrainer.train logs its step line on the main process only
    assert [(s.step, s.rank) for s in of(events, StepEvent)] == [(20, 0), (40, 0)]
    loading = [p.rank for p in of(events, TrainerPhase) if p.phase == "loading"]
    assert loading == [0, 1]
    assert of(events, CheckpointSaved)[0].rank == 0
    (stats,) = of(events, Statistics)
    assert (stats.num_processes, stats.global_batch, stats.samples_per_s) == (2, 2, 1.08)


def test_oom_traceback_gives_an_oom_and_one_traceback_ending_in_the_error():
    events = parse_file("oom_cols80.txt")
    (oom,) = of(events, OomError)
    assert "Tried to allocate 2.50 GiB" in oom.line
    (tb,) = of(events, Traceback)
    assert tb.first_line == "Traceback (most recent call last):"
    assert tb.last_line.startswith("torch.OutOfMemoryError: CUDA out of memory.")
    assert not of(events, StepEvent) and not of(events, Statistics)


def test_interleaved_rank_tracebacks_are_told_apart():
    events = parse_file("oom_two_gpu_ranks.txt")
    assert sorted(e.rank for e in of(events, OomError)) == [0, 1]
    tracebacks = sorted(of(events, Traceback), key=lambda tb: tb.rank)
    assert [tb.rank for tb in tracebacks] == [0, 1]
    assert "GPU 1 has" in tracebacks[1].last_line


def test_cublas_allocation_failure_counts_as_oom():
    events = parse_file("cublas_alloc_failed.txt")
    assert "CUBLAS_STATUS_ALLOC_FAILED" in of(events, OomError)[0].line


def test_nan_loss_is_reported_with_its_step():
    events = parse_file("nan_loss.txt")
    assert [n.step for n in of(events, NanLoss)] == [40]
    assert math.isnan(of(events, StepEvent)[1].loss)


def test_config_error_keeps_the_pydantic_text():
    events = parse_file("real_config_errors_cols80.txt")
    (error,) = of(events, ConfigError)
    assert error.text.startswith("Error: Invalid configuration data:")
    assert "optimisation" in error.text and "extra_forbidden" in error.text
    assert not of(events, Traceback)


def test_plain_config_error_keeps_every_line_after_it():
    (error,) = of(parse_file("real_config_errors_cols80.txt"), ConfigError)
    assert error.text.splitlines()[1:3] == [
        "model.model_path",
        "  Field required [type=missing, input_value={'load_checkpoint': None,...'training_mode': "
        "'lora'}, input_type=dict]",
    ]
    assert error.text.splitlines()[-1].endswith("errors.pydantic.dev/2.13/v/extra_forbidden")


def test_chained_stop_iteration_is_one_traceback_and_one_stop_iteration():
    events = parse_file("stop_iteration_cols80.txt")
    assert [e.line for e in of(events, StopIterationError)] == ["StopIteration"]
    (tb,) = of(events, Traceback)
    assert tb.last_line == "StopIteration"
    assert not of(events, OomError)


def test_a_wide_step_line_is_reported_as_soon_as_it_arrives():
    parser = TrainerLogParser()
    line = (
        "INFO     Step 20/50 - Loss: 0.2437, LR: 6.00e-05, Time/Step: 1.55s, Total Time: "
        "calculating..." + " " * 100 + "trainer.py:447\n"
    )
    (step,) = parser.feed(line, 12.5)
    assert (step.step, step.t, step.time_per_step_s) == (20, 12.5, 1.55)
    assert parser.finish() == []


def test_a_step_line_wrapped_over_three_lines_completes_on_its_last_line():
    parser = TrainerLogParser()
    lines = [
        "INFO     [rank 0] Step 40/50 - Loss: 0.1987,  trainer.py:447",
        "         LR: 2.00e-05, Time/Step: 1.67s,                   ",
        "         Total Time: 0h 1m                                 ",
    ]
    assert parser.feed(lines[0], 1.0) == [] and parser.feed(lines[1], 1.0) == []
    (step,) = parser.feed(lines[2], 1.01)
    assert (step.step, step.rank, step.lr, step.t) == (40, 0, 2e-05, 1.0)


def test_unformatted_output_is_understood_too():
    events = parse(
        [
            "\x1b[32mStep 20/50 - Loss: 0.5000, LR: 1.00e-04, Time/Step: 3.00s, Total Time: 0h 3m\x1b[0m\r\n",
            "📊 Training Statistics:",
            " - Total time: 4.0 minutes",
            " - Training speed: 0.21 steps/second",
            " - Samples/second: 0.42",
            " - Peak GPU memory: 44.10 GB",
            "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB",
        ]
    )
    assert [(s.step, s.time_per_step_s) for s in of(events, StepEvent)] == [(20, 3.0)]
    (stats,) = of(events, Statistics)
    assert (stats.total_time_min, stats.samples_per_s) == (4.0, 0.42)
    assert stats.peak_gpu_memory_gb == 44.1
    assert len(of(events, OomError)) == 1


def test_code_lines_inside_a_traceback_are_not_mistaken_for_errors():
    events = parse(
        [
            "Traceback (most recent call last):",
            '  File "x.py", line 3, in <module>',
            '    raise torch.OutOfMemoryError("CUDA out of memory")',
            "ValueError: bad value",
        ]
    )
    assert not of(events, OomError)
    assert of(events, Traceback)[0].last_line == "ValueError: bad value"


def test_an_unfinished_statistics_block_is_not_reported():
    events = parse(
        [
            "INFO     📊 Training Statistics:        trainer.py:702",
            "          - Total time: 1.9 minutes              ",
        ]
    )
    assert not of(events, Statistics)


# -- floods: linear time, bounded memory ----------------------------------------------------------


def _rich_table(rows: int) -> list[str]:
    """One rich record followed by `rows` continuation lines (how rich prints a table)."""
    head = "INFO     Model summary:" + " " * 60 + "trainer.py:210"
    body = "         │ transformer_blocks.{}.attn1.to_q.weight │ bf16 │ [4096, 4096] │ ✓ │"
    return [head] + [body.format(i) for i in range(rows)]


def _parse_seconds(lines: list[str]) -> float:
    import time

    best = math.inf
    for _ in range(5):  # the best of five: a busy machine only ever adds time
        parser = TrainerLogParser()
        t0 = time.perf_counter()
        for line in lines:
            parser.feed(line, 0.0)
        parser.finish()
        best = min(best, time.perf_counter() - t0)
    return best


@pytest.mark.serial  # compares two timings: other workers' load would skew one of them
def test_continuation_lines_parse_in_linear_time():
    # Rejoining and rescanning the whole record per line made 8k lines take two minutes.
    small, big = _parse_seconds(_rich_table(10_000)), _parse_seconds(_rich_table(20_000))
    assert big < 3.5 * small, (small, big)


def test_an_event_deep_inside_a_long_record_is_found_once_and_the_next_record_still_parses():
    lines = _rich_table(60)
    lines.insert(40, "         torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2 GiB")
    lines += _rich_table(5000)[1:]  # far past what a record keeps
    lines.append(
        "INFO     Step 20/50 - Loss: 0.2437, LR: 6.00e-05, Time/Step: 1.55s, "
        "Total Time: 0h 1m   trainer.py:447"
    )
    events = parse(lines)
    (oom,) = of(events, OomError)
    assert "CUDA out of memory" in oom.line and len(oom.line) <= 16 * 1024
    assert [s.step for s in of(events, StepEvent)] == [20]


def test_a_flood_after_a_config_error_keeps_a_bounded_block():
    lines = ["Error: Invalid configuration data:", "model.path", "  Field required"]
    lines += [f"noise {i}" for i in range(50_000)]
    (error,) = of(parse(lines), ConfigError)
    assert error.text.startswith("Error: Invalid configuration data:\nmodel.path\n  Field required")
    assert len(error.text.splitlines()) <= 200


def test_the_composed_samples_are_what_their_script_writes(tmp_path):
    # scripts/compose_trainer_logs.py is the one source of the GPU-only samples: a hand edit to
    # a sample (or to the script without re-running it) shows here.
    script = Path(__file__).resolve().parents[3] / "scripts" / "compose_trainer_logs.py"
    compose = runpy.run_path(str(script))
    out = tmp_path / "composed"
    out.mkdir()
    compose["main"]([str(out)])
    written = sorted(p.name for p in out.iterdir())
    assert len(written) == 9
    assert [
        n
        for n in written
        if (CORPUS / n).read_text(encoding="utf-8") != (out / n).read_text(encoding="utf-8")
    ] == []
