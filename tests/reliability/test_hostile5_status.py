"""Round five, item 5: the status cursor drops its history when the log is rewritten in place.

The cursor (core/monitor/cursor_store.py) kept a hash of only the 4 KB before its offset: a log
written again in place (the same file, the same size or larger, those 4 KB alike) gave the old
run's pid, W&B link and losses as the new one's."""

from __future__ import annotations

from ltx_wizard.core.monitor import log_reader
from ltx_wizard.core.monitor.status import RunMonitor
from tests.core.monitor.test_status_cursor import _run, _status, attempt


def _rewrite_head(log, old: str, new: str) -> None:
    """The same bytes, a few in the head changed, written over in place (same inode)."""
    text = log.read_text()
    head, rest = text[:2000], text[2000:]
    changed = head.replace(old, new)
    assert len(changed) == len(head) and changed != head
    with log.open("r+") as fh:
        fh.write(changed + rest)


def test_a_log_rewritten_in_place_at_the_same_size_is_read_again(tmp_path, monkeypatch):
    monkeypatch.setattr(log_reader, "TAIL_BYTES", 16 << 10)
    run = _run(tmp_path, attempt(20, 8_000, 100_000, pid=41))
    log = run / "logs" / "train.log"
    assert _status(run).step == 8_000
    _rewrite_head(log, "pid 41", "pid 42")
    monitor = RunMonitor(run, gpu_reader=lambda visible: ([], None))
    monitor.status()
    assert monitor.log.attempt.pid == 42  # the log as it is now, not the cursor's old history


def test_a_log_rewritten_in_place_and_grown_is_read_again(tmp_path, monkeypatch):
    monkeypatch.setattr(log_reader, "TAIL_BYTES", 16 << 10)
    run = _run(tmp_path, attempt(20, 8_000, 100_000, pid=43))
    log = run / "logs" / "train.log"
    _status(run)
    _rewrite_head(log, "runs/r43", "runs/r44")
    with log.open("a") as fh:
        fh.write(attempt(8_020, 8_400, 100_000, pid=43).split("\n", 3)[3])
    monitor = RunMonitor(run, gpu_reader=lambda visible: ([], None))
    monitor.status()
    assert monitor.log.wandb_url is not None and monitor.log.wandb_url.endswith("r44")


def test_the_final_block_names_the_last_step_written(tmp_path, monkeypatch):
    """The writer wrote on between status's read of the log and its exit (57 MB/s in the issue):
    the block made once it is gone names its last step, not the one the first read reached."""
    from ltx_wizard.core.monitor import status as status_module
    from tests.core.monitor.test_monitor_log import step_line

    monkeypatch.setattr(log_reader, "TAIL_BYTES", 16 << 10)
    run = _run(tmp_path, attempt(20, 8_000, 100_000, pid=45))
    log = run / "logs" / "train.log"

    def writer_ends(run_dir):
        with log.open("a") as fh:  # its last lines, then it exits
            fh.write("".join(step_line(s, total=100_000) for s in range(8_020, 9_001, 20)))
        return None

    monkeypatch.setattr(status_module, "trainer_process", writer_ends)
    assert RunMonitor(run, gpu_reader=lambda visible: ([], None)).status().step == 9_000


def test_a_watch_refresh_under_a_fast_writer_reads_a_bounded_part_and_the_last_step(tmp_path, monkeypatch):
    """`status --watch` against a writer faster than the history skim: each refresh skims at
    most SKIM_MAX_BYTES of what was added and still names the last step written."""
    from ltx_wizard.core.monitor import run_log
    from tests.core.monitor.test_monitor_log import step_line
    from tests.core.monitor.test_status_cursor import _scans

    monkeypatch.setattr(log_reader, "TAIL_BYTES", 16 << 10)
    monkeypatch.setattr(run_log, "CATCH_UP_BYTES", 32 << 10)
    monkeypatch.setattr(run_log, "SKIM_MAX_BYTES", 256 << 10)
    run = _run(tmp_path, attempt(20, 2_000, 10_000_000, pid=47))
    log = run / "logs" / "train.log"
    monitor = RunMonitor(run, gpu_reader=lambda visible: ([], None))
    monitor.refresh()
    with log.open("a") as fh:  # megabytes between two refreshes
        fh.write("".join(step_line(s, total=10_000_000) for s in range(2_020, 60_001, 4)))
    scans = _scans(monkeypatch)
    monitor.refresh()
    assert monitor.log.step == 60_000
    assert sum(end - start for start, end in scans) <= 256 << 10, scans
