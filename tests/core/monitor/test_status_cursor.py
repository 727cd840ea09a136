"""`status` from where it left off (#36.3): the history read in bulk says what a line-by-line read
says; the cursor kept beside the log makes the next process read only the new bytes, and is not
trusted when the log was rotated, truncated and written again, or the cursor itself is damaged."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ltx_wizard.core.monitor import log_reader
from ltx_wizard.core.trainer_output import history_scan
from ltx_wizard.core.monitor.cursor_store import cursor_path
from ltx_wizard.core.trainer_output.history_scan import HistoryScan
from ltx_wizard.core.monitor.run_log import RunLog
from ltx_wizard.core.monitor.status import RunMonitor
from tests.monitor_runs import make_run
from tests.core.monitor.test_monitor_log import record, step_line

NOISE = (
    "/x/torch/utils/checkpoint.py:87: UserWarning: None of the inputs have requires_grad=True\n"
    "  warnings.warn(\n"
)


def attempt(
    first: int,
    last: int,
    total: int,
    *,
    pid: int,
    resumed: bool = False,
    accumulation: bool = False,
    nan_from: int | None = None,
) -> str:
    """One launch of the run in the trainer's layout: marker, start-up lines, step lines (each
    twice with gradient accumulation, Step 0 first), a save and a validation every 100 steps."""
    out = [
        f"=== 2026-01-02T03:04:00Z launch.sh started, pid {pid}\n",
        f"wandb: 🚀 View run kites at: https://wandb.ai/me/proj/runs/r{pid}\n",
        record("Building transformer with attention backends -- self: FA3, masked: SDPA", "model.py:87"),
    ]
    if resumed:
        out.append(record(f"🚀 Resuming training from step {first - 20} → {total}", "trainer.py:189"))
    if accumulation:
        out.append(step_line(0, total=total, loss=7.0))
    for step in range(first, last + 1, 20):
        if step % 100 == 0:
            out.append(
                record(f"🎥 Validation samples for step {step} saved in samples", "validation_runner.py:310")
            )
            out.append(
                record(
                    f"💾 Lora weights for step {step} saved in checkpoints/"
                    f"lora_weights_step_{step:05d}.safetensors",
                    "trainer.py:981",
                )
            )
        loss = float("nan") if nan_from is not None and step >= nan_from else 1.0 / step
        out += [step_line(step, total=total, loss=loss, secs=1.0 + step % 7 / 10)] * (
            2 if accumulation else 1
        )
        if step % 260 == 0:
            out.append(NOISE)
    return "".join(out)


def facts(log: RunLog) -> dict:
    return {
        "points": log.points,
        "first": log.first_loss,
        "last_finite": log.loss.last_finite,
        "nan_step": log.loss.nan_step,
        "step": log.step,
        "total": log.total,
        "checkpoints": list(log.checkpoints),
        "validations": log.attempt.validation_steps,
        "pid": log.attempt.pid,
        "attempts": log.attempts,
        "wandb": log.wandb_url,
        "attention": log.attention,
        "resumed_from": log.attempt.resumed_from,
        "steady": sorted(log.steady),
        "projection": log.attempt.projection,
    }


LOGS = {
    "one launch": attempt(20, 4000, 4000, pid=11),
    "accumulation": attempt(20, 3000, 3000, pid=12, accumulation=True),
    "two launches": attempt(20, 1500, 3000, pid=13) + attempt(1520, 3000, 3000, pid=14, resumed=True),
    "nan": attempt(20, 3000, 3000, pid=15, nan_from=1220),
}


@pytest.mark.parametrize("name", list(LOGS))
def test_the_history_read_in_bulk_says_what_a_line_by_line_read_says(tmp_path, monkeypatch, name):
    path = tmp_path / "train.log"
    path.write_text(LOGS[name])
    whole = RunLog(path)
    monkeypatch.setattr(log_reader, "TAIL_BYTES", 1 << 30)  # everything through the parser
    whole.refresh()
    monkeypatch.setattr(log_reader, "TAIL_BYTES", 8 << 10)
    monkeypatch.setattr(history_scan, "SLOW_BYTES", 8 << 10)
    skimmed = RunLog(path)
    skimmed.refresh()
    assert skimmed.lines < whole.lines  # most of it was skimmed, not parsed
    assert facts(skimmed) == facts(whole)


def _run(tmp_path: Path, text: str) -> Path:
    run = make_run(tmp_path, "", steps=100_000)
    (run / "logs" / "train.log").write_text(text)
    return run


def _scans(monkeypatch) -> list[tuple[int, int]]:
    seen = []
    scan = HistoryScan.scan

    def recording(self, start, end):
        seen.append((start, end))
        return scan(self, start, end)

    monkeypatch.setattr(HistoryScan, "scan", recording)
    return seen


def _status(run: Path):
    return RunMonitor(run, gpu_reader=lambda visible: ([], None)).status()


def _same(a, b) -> None:
    for key in (
        "step",
        "total",
        "points",
        "first_loss",
        "checkpoints",
        "state",
        "last_finite",
        "nan_step",
        "wandb_url",
        "attention",
    ):
        assert getattr(a, key) == getattr(b, key), key


def test_a_second_process_reads_only_what_was_added(tmp_path, monkeypatch):
    monkeypatch.setattr(log_reader, "TAIL_BYTES", 16 << 10)
    run = _run(tmp_path, attempt(20, 20_000, 100_000, pid=21))
    log = run / "logs" / "train.log"
    _status(run)
    kept = json.loads(cursor_path(log).read_text())
    assert kept["identity"] == [log.stat().st_dev, log.stat().st_ino]
    assert 0 < kept["offset"] <= log.stat().st_size - (16 << 10) + 256  # a line start
    with log.open("a") as fh:
        fh.write("".join(step_line(s, total=100_000) for s in range(20_020, 24_001, 20)))
    scans = _scans(monkeypatch)
    second = _status(run)
    assert scans == [(kept["offset"], scans[0][1])]  # from the cursor on, not from byte 0
    cursor_path(log).unlink()
    _same(second, _status(run))  # what a read from the start says


def test_a_rotated_log_is_read_from_its_start(tmp_path, monkeypatch):
    monkeypatch.setattr(log_reader, "TAIL_BYTES", 16 << 10)
    run = _run(tmp_path, attempt(20, 8_000, 100_000, pid=22))
    log = run / "logs" / "train.log"
    _status(run)
    text = log.read_text()
    log.rename(log.with_name("train.log.1"))
    log.write_text(text.replace("pid 22", "pid 23"))  # the same size, another file
    scans = _scans(monkeypatch)
    monitor = RunMonitor(run, gpu_reader=lambda visible: ([], None))
    assert monitor.status().step == 8_000
    assert scans[0][0] == 0 and monitor.log.attempt.pid == 23


def test_a_log_truncated_and_written_again_is_caught_by_the_bytes_before_the_offset(tmp_path, monkeypatch):
    monkeypatch.setattr(log_reader, "TAIL_BYTES", 16 << 10)
    run = _run(tmp_path, attempt(20, 8_000, 100_000, pid=24))
    log = run / "logs" / "train.log"
    _status(run)
    with log.open("r+") as fh:  # copytruncate, then a new run writes more than before
        fh.truncate(0)
        fh.write(attempt(20, 12_000, 100_000, pid=25).replace("Loss: 0.", "Loss: 1."))
    scans = _scans(monkeypatch)
    status = _status(run)
    assert scans[0][0] == 0 and status.step == 12_000
    assert status.first_loss == (20, 1.05)  # the new log's losses, none of the old one's


@pytest.mark.parametrize("damage", ["garbage", "types", "huge", "deep", "fifo", "link"])
def test_a_damaged_cursor_is_ignored(tmp_path, monkeypatch, damage):
    monkeypatch.setattr(log_reader, "TAIL_BYTES", 16 << 10)
    run = _run(tmp_path, attempt(20, 8_000, 100_000, pid=26))
    log = run / "logs" / "train.log"
    first = _status(run)
    cursor = cursor_path(log)
    doc = json.loads(cursor.read_text())
    if damage == "garbage":
        cursor.write_bytes(b"\xff{not json")
    elif damage == "types":
        doc["history"]["loss"]["points"] = [["20", "x"]]
        cursor.write_text(json.dumps(doc))
    elif damage == "huge":
        doc["history"]["step"] = int("9" * 50)
        cursor.write_text(json.dumps(doc))
    elif damage == "deep":
        cursor.write_text(json.dumps(doc)[:-1] + ', "x": ' + "[" * 5000 + "]" * 5000 + "}")
    elif damage == "fifo":
        cursor.unlink()
        os.mkfifo(cursor)
    else:
        cursor.unlink()
        cursor.symlink_to(tmp_path / "elsewhere.json")
    scans = _scans(monkeypatch)
    again = _status(run)
    assert scans[0][0] == 0  # read from the start
    _same(again, first)
    if damage in ("fifo", "link"):  # not written through: the wizard writes no such file
        assert not (tmp_path / "elsewhere.json").exists()


def test_a_read_only_logs_folder_costs_only_time(tmp_path, monkeypatch):
    monkeypatch.setattr(log_reader, "TAIL_BYTES", 16 << 10)
    run = _run(tmp_path, attempt(20, 8_000, 100_000, pid=27))
    logs = run / "logs"
    logs.chmod(0o555)
    try:
        status = _status(run)
    finally:
        logs.chmod(0o755)
    assert status.step == 8_000
    if os.geteuid() != 0:  # root writes anyway
        assert not cursor_path(logs / "train.log").exists()
