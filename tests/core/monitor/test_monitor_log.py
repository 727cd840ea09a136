"""The monitor's log reading: incremental from the last offset, rotation and truncation, the
trial parser's events (ranks, nodes), steady pace and ETA, failures, and the run's state."""

from __future__ import annotations

import os

import pytest

from ltx_wizard.core.monitor import log_reader
from ltx_wizard.core.monitor.log_reader import LogCursor
from ltx_wizard.core.monitor.run_log import RunLog
from ltx_wizard.core.monitor.status import MEASURING, RunMonitor
from ltx_wizard.core.monitor.report import block, pace_line
from tests.monitor_runs import FAILURES, end, make_run, sample_log, start_live

PAD = 250


def step_line(
    step: int,
    total: int = 1000,
    loss: float = 0.2,
    secs: float = 1.5,
    rank: int | None = None,
    projection: str | None = None,
) -> str:
    """A step line as trainer.py LtxvTrainer.train prints it; `Total Time` is its projection
    (elapsed / steps done x steps), here from `secs` unless given."""
    prefix = f"[rank {rank}] " if rank is not None else ""
    if projection is None:
        seconds = secs * total
        projection = f"{seconds // 3600:.0f}h {(seconds % 3600) // 60:.0f}m"
    text = (
        f"INFO     {prefix}Step {step}/{total} - Loss: {loss:.4f}, LR: 1.00e-04, "
        f"Time/Step: {secs:.2f}s, Total Time: {projection}"
    )
    return text.ljust(PAD - 15) + " trainer.py:447\n"


def record(text: str, src: str = "trainer.py:561") -> str:
    return f"INFO     {text}".ljust(PAD - 15) + f" {src}\n"


def no_gpus(_visible):
    return [], None


def test_cursor_reads_only_what_was_added_and_keeps_a_partial_line(tmp_path):
    path = tmp_path / "train.log"
    path.write_text("one\ntw")
    cursor = LogCursor(path)
    assert cursor.read_new() == (["one"], False)
    with path.open("a") as fh:
        fh.write("o\nthree\n")
    assert cursor.read_new() == (["two", "three"], False)
    assert cursor.read_new() == ([], False)


def test_cursor_starts_over_after_truncation_and_rotation(tmp_path):
    path = tmp_path / "train.log"
    path.write_text("a\nb\nc\n")
    cursor = LogCursor(path)
    cursor.read_new()
    path.write_text("x\n")  # truncated in place (shorter than what was read)
    assert cursor.read_new() == (["x"], True)
    os.rename(path, tmp_path / "train.log.1")  # rotated: a new file under the old name
    path.write_text("new\n")
    assert cursor.read_new() == (["new"], True)


def test_run_log_follows_an_appended_log_and_a_truncated_one(tmp_path):
    path = tmp_path / "train.log"
    path.write_text(step_line(20))
    log = RunLog(path)
    log.refresh()
    assert log.step == 20
    with path.open("a") as fh:
        fh.write(step_line(40, loss=0.1))
    log.refresh()
    assert (log.step, log.recent[-1]) == (40, (40, 0.1))
    path.write_text(step_line(20, loss=0.3))  # copytruncate: the log starts again
    log.refresh()
    assert log.step == 20 and list(log.recent) == [(20, 0.3)]


@pytest.mark.parametrize("ranks", [(None,), (0, 1)], ids=["one-process", "two-ranks"])
def test_long_log_first_look_reads_history_and_parses_the_tail(tmp_path, monkeypatch, ranks):
    monkeypatch.setattr(log_reader, "TAIL_BYTES", 4096)
    path = tmp_path / "train.log"
    noise = "/x/checkpoint.py:87: UserWarning: None of the inputs have requires_grad=True.\n"
    with path.open("w") as fh:
        fh.write("=== 2026-01-02T03:04:00Z launch.sh started, pid 77\n")
        fh.write("wandb: 🚀 View run kites at: https://wandb.ai/me/ltx2-lora/runs/abc123\n")
        for step in range(20, 2001, 20):
            fh.write(
                noise * 5
                + "".join(
                    step_line(step, total=2000, loss=1.0 / step + (rank or 0), rank=rank) for rank in ranks
                )
            )
            if step % 500 == 0:
                fh.write(
                    record(
                        f"💾 Lora weights for step {step} saved in "
                        f"checkpoints/lora_weights_step_{step:05d}.safetensors",
                        "trainer.py:612",
                    )
                )
    log = RunLog(path)
    log.refresh()
    assert log.first_loss == (20, 1.0 / 20)  # from the history scan, far before the tail
    assert log.step == 2000 and log.total == 2000
    assert [c.step for c in log.checkpoints] == [500, 1000, 1500, 2000]
    assert log.wandb_url == "https://wandb.ai/me/ltx2-lora/runs/abc123"
    assert len(log.points) == 100 and log.attempt.pid == 77
    assert all(loss == round(1.0 / step, 4) for step, loss in log.points)  # rank 0, not rank 1


def test_history_sees_a_restart_from_step_0_as_a_new_attempt(tmp_path, monkeypatch):
    monkeypatch.setattr(log_reader, "TAIL_BYTES", 4096)
    path = tmp_path / "train.log"
    first = "".join(step_line(s, total=400, loss=0.5) for s in range(20, 201, 20))
    again = "".join(step_line(s, total=400, loss=0.2) for s in range(20, 401, 20))
    path.write_text(
        "=== 2026-01-02T03:04:00Z launch.sh started, pid 1\n"
        + first
        + "=== 2026-01-02T05:04:00Z launch.sh started, pid 2\n"
        + again
    )
    log = RunLog(path)
    log.refresh()
    assert log.attempt.pid == 2 and log.step == 400
    assert [loss for step, loss in log.points if step == 20] == [0.5, 0.2]  # both attempts kept


def test_loss_history_is_thinned_not_unbounded(tmp_path, monkeypatch):
    from ltx_wizard.core.monitor import loss_track

    monkeypatch.setattr(loss_track, "MAX_POINTS", 64)
    path = tmp_path / "train.log"
    path.write_text("".join(step_line(s, total=10_000) for s in range(20, 10_001, 20)))
    log = RunLog(path)
    log.refresh()
    assert len(log.points) < 64 and log.points[0][0] == 20 and log.step == 10_000


def test_ranks_and_a_second_nodes_rank_0_count_each_step_once(tmp_path):
    path = tmp_path / "train.log"
    # two ranks of node 0, then node 1's own `[rank 0]` repeating the same steps
    path.write_text(
        step_line(20, rank=0)
        + step_line(20, rank=1, loss=0.9)
        + step_line(20, rank=0)
        + step_line(40, rank=1, loss=0.15)
        + step_line(40, rank=0, loss=0.7)
    )
    log = RunLog(path)
    log.refresh()
    assert [s for s, _ in log.points] == [20, 40]
    assert log.step == 40


def test_pace_leaves_out_validation_and_checkpoint_steps(tmp_path):
    run = make_run(
        tmp_path,
        "".join(
            [
                step_line(20, secs=9.0),  # the first line: loading and the step-0 validation are before it
                step_line(40, secs=2.0),
                record("🎥 Validation samples for step 60 saved in samples"),
                step_line(60, secs=40.0),  # a validation pass inside this step
                step_line(80, secs=2.2),
            ]
        ),
        steps=1000,
    )
    monitor = RunMonitor(run, gpu_reader=no_gpus)
    status = monitor.status()
    # steps 20, 40 and 80 are steady; 60 held a validation pass
    assert status.s_per_step == pytest.approx(2.2)


def test_eta_says_measuring_until_a_projection_or_two_steady_steps(tmp_path):
    run = make_run(tmp_path, step_line(20, secs=2.0, projection="calculating..."), steps=1000)
    proc = start_live(run)
    try:
        monitor = RunMonitor(run, gpu_reader=no_gpus)
        status = monitor.status()
        assert status.state == "live" and status.eta_s is None
        assert MEASURING in pace_line(status)
        with (run / "logs" / "train.log").open("a") as fh:
            fh.write(step_line(40, secs=2.0, projection="calculating..."))
        status = monitor.status()
        assert status.eta_s == pytest.approx((1000 - 40) * 2.0)
        assert "ETA: ~32m (steady pace" in pace_line(status)
    finally:
        end(proc)


@pytest.mark.parametrize("case", list(FAILURES))
def test_each_failure_class_is_diagnosed_with_advice(tmp_path, case):
    sample, words = FAILURES[case]
    run = make_run(tmp_path, sample_log(sample))
    status = RunMonitor(run, gpu_reader=no_gpus).status()
    assert status.diagnosis is not None and words in status.diagnosis.cause
    kind = status.diagnosis.kind
    assert kind == {"oom_ranks": "oom"}.get(case, case)
    assert status.state == ("finished" if case == "nan" else "failed")
    assert status.diagnosis.advice
    text = "\n".join(block(status))
    assert f"Failure ({kind})" in text


def test_oom_in_validation_proposes_the_validation_fixes(tmp_path):
    run = make_run(tmp_path, sample_log("oom_validation_cols80"))
    status = RunMonitor(run, gpu_reader=no_gpus).status()
    assert status.diagnosis.kind == "oom_validation"
    assert status.diagnosis.changes == {"acceleration.load_text_encoder_in_8bit": True}


def test_oom_in_training_proposes_the_cheapest_missing_fix(tmp_path):
    run = make_run(tmp_path, sample_log("oom_cols80"), gc=False)
    status = RunMonitor(run, gpu_reader=no_gpus).status()
    assert status.diagnosis.changes == {"optimization.enable_gradient_checkpointing": True}


def test_a_second_launch_starts_a_new_attempt(tmp_path):
    log = (
        sample_log("oom_cols80")
        + "=== 2026-01-02T05:00:00Z launch.sh started, pid 99\n"
        + sample_log("ok_single_gpu_cols250")
    )
    run = make_run(tmp_path, log)
    status = RunMonitor(run, gpu_reader=no_gpus).status()
    assert status.state == "finished" and status.diagnosis is None


def test_stopped_run_with_checkpoints_is_resumable(tmp_path):
    text = sample_log("ok_single_gpu_cols250").split("INFO     🎥 Validation samples for step 50")[0]
    run = make_run(tmp_path, text, checkpoints=((20, True), (40, True)), samples=(0,))
    status = RunMonitor(run, gpu_reader=no_gpus).status()
    assert status.state == "stopped" and status.resumable
    assert [c.step for c in status.checkpoints] == [40, 20]
    assert "Latest checkpoint:" in "\n".join(block(status))


def test_attention_backends_and_wandb_url_are_shown(tmp_path):
    run = make_run(
        tmp_path,
        record("Building transformer with attention backends -- self: FA3, masked: SDPA_FLASH", "model.py:87")
        + "wandb: 🚀 View run kites at: https://wandb.ai/me/proj/runs/x1y2\n",
    )
    text = "\n".join(block(RunMonitor(run, gpu_reader=no_gpus).status()))
    assert "Attention: self: FA3, masked: SDPA_FLASH" in text
    assert "W&B: https://wandb.ai/me/proj/runs/x1y2" in text


def test_live_run_shows_its_gpus_through_nvml(tmp_path, monkeypatch):
    import sys

    from tests.fake_nvml import FakeDevice, make_module

    devices = [
        FakeDevice("NVIDIA H100 80GB HBM3", 81559, "GPU-a", used_mib=40960),
        FakeDevice("NVIDIA H100 80GB HBM3", 81559, "GPU-b", used_mib=1024),
    ]
    nvml = make_module(devices)
    nvml.nvmlDeviceGetUtilizationRates = lambda h: type("U", (), {"gpu": 93 if h.uuid == "GPU-a" else 0})()
    monkeypatch.setitem(sys.modules, "pynvml", nvml)
    run = make_run(tmp_path, step_line(20))
    (run / "run.json").write_text(
        '{"launch": {"argv": ["x"], "cwd": "/", "env": {"CUDA_VISIBLE_DEVICES": "0"}}}'
    )
    proc = start_live(run)
    try:
        status = RunMonitor(run).status()
    finally:
        end(proc)
    assert [g.index for g in status.gpus] == [0]  # only the run's visible device
    assert "GPU 0 NVIDIA H100 80GB HBM3: 93% util, 40.0 / 79.6 GiB" in "\n".join(block(status))


def test_gradient_accumulations_step_0_line_is_not_a_step(tmp_path):
    # With gradient_accumulation_steps 2 the real trainer logs "Step 0/40" on its first
    # micro-step (seen running LtxvTrainer on CPU): the loss curve starts at step 20.
    path = tmp_path / "train.log"
    path.write_text(
        step_line(0, total=40, loss=7.3)
        + step_line(20, total=40, loss=0.5)
        + step_line(20, total=40, loss=0.6)
        + step_line(40, total=40, loss=0.4)
    )
    log = RunLog(path)
    log.refresh()
    assert log.first_loss == (20, 0.5)
    assert list(log.recent) == [(20, 0.5), (40, 0.4)] and log.step == 40


@pytest.mark.parametrize("tail", [4096, 10_000_000])  # read in bulk, or line by line
def test_a_resume_drops_the_steps_the_stopped_attempt_abandoned(tmp_path, monkeypatch, tail):
    # attempt 1 trained to step 200 and stopped; attempt 2 resumed from the step-100 checkpoint
    # and trained 120..200 again: the curve holds those steps once, from the run that kept them
    monkeypatch.setattr(log_reader, "TAIL_BYTES", tail)
    path = tmp_path / "train.log"
    first = "".join(step_line(s, total=400, loss=0.5) for s in range(20, 201, 20))
    resumed = "".join(step_line(s, total=400, loss=0.2) for s in range(120, 401, 20))
    path.write_text(
        "=== 2026-01-02T03:04:00Z launch.sh started, pid 1\n"
        + first
        + "=== 2026-01-02T05:04:00Z launch.sh started, pid 2\n"
        + "INFO     🚀 Resuming training from step 100 → 400\n"
        + resumed
    )
    log = RunLog(path)
    log.refresh()
    steps = [step for step, _ in log.points]
    assert steps == sorted(steps) and len(steps) == len(set(steps))
    assert all(loss == 0.5 for step, loss in log.points if step <= 100)
    assert all(loss == 0.2 for step, loss in log.points if step > 100)
