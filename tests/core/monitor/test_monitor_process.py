"""Stopping a run: the trainer and every rank it started, and nothing else."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

from ltx_wizard.core.io.pid_records import record_text
from ltx_wizard.core.monitor.trainer_process import (
    TrainerProcess,
    started_at,
    stop_trainer,
    trainer_process,
)
from tests.monitor_runs import end, make_run, start_live

SLEEPER = "import time; time.sleep(120)"


def gone(pid: int) -> bool:
    """Ended (a zombie not yet reaped by its parent counts: it holds nothing)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    except OSError:
        return True


async def test_stop_ends_the_trainer_and_the_rank_that_left_its_group(tmp_path):
    run = make_run(tmp_path, "")
    # the "trainer" starts a "rank" in a session of its own, as torchrun does
    code = (
        f"import subprocess, sys, time; p = subprocess.Popen([sys.executable, '-c', "
        f"{SLEEPER!r}], start_new_session=True); print(p.pid, flush=True); time.sleep(120)"
    )
    trainer = subprocess.Popen(
        [sys.executable, "-c", code], start_new_session=True, stdout=subprocess.PIPE, text=True
    )
    rank = int(trainer.stdout.readline())
    (run / "logs" / "train.pid").write_text(record_text(trainer.pid))
    try:
        proc = trainer_process(run)
        assert proc is not None and proc.pid == trainer.pid and proc.started is not None
        await stop_trainer(proc, grace_s=5.0, poll_s=0.05)
        trainer.wait(timeout=30)
        assert gone(rank)
    finally:
        end(trainer)
        if not gone(rank):
            os.kill(rank, signal.SIGKILL)


async def test_a_trainer_that_does_not_lead_its_group_is_stopped_without_its_group(tmp_path):
    # a script (the group's leader) started launch.sh by hand: only the trainer's tree may go
    code = (
        f"import subprocess, sys, time; p = subprocess.Popen([sys.executable, '-c', "
        f"{SLEEPER!r}]); print(p.pid, flush=True); time.sleep(120)"
    )
    script = subprocess.Popen(
        [sys.executable, "-c", code], start_new_session=True, stdout=subprocess.PIPE, text=True
    )
    child = int(script.stdout.readline())
    try:
        await stop_trainer(TrainerProcess(child, started_at(child)), grace_s=5.0, poll_s=0.05)
        assert gone(child)
        assert script.poll() is None  # the script that started it lives on
    finally:
        end(script)


def test_a_recycled_pid_is_not_taken_for_the_trainer(tmp_path):
    run = make_run(tmp_path, "")
    proc = start_live(run)
    try:
        pid_file = run / "logs" / "train.pid"
        assert trainer_process(run) is not None
        # the record names the same pid with another start time: another process had it
        pid_file.write_text(f"{proc.pid} 1\n")
        assert trainer_process(run) is None
    finally:
        end(proc)
