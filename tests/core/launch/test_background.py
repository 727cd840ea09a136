"""Background start of launch.sh (core/launch/background.py): detached, one pid file, no second start."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from ltx_wizard.core.launch.background import running_pid, start_training
from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.launch.script import write_script
from ltx_wizard.core.io.run_meta import LaunchSpec


def _reap(pid: int) -> None:
    """Wait for our child `pid`; the wizard's own reaper (running_pid) may have collected it."""
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def _wait_group_gone(pgid: int) -> None:
    """launch.sh's tee (its own process) still writes the log after the trainer exits: wait until
    the whole process group the start made is gone (bounded poll of the kernel's answer)."""
    _reap(pgid)
    for _ in range(600):
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    raise AssertionError(f"process group {pgid} still runs")


def _run_with_script(tmp_path: Path, code: str) -> Path:
    run = tmp_path / "run"
    write_script(run, LaunchSpec(argv=[sys.executable, "-c", code], cwd=tmp_path))
    return run


def test_background_start_runs_launch_sh_writes_pid_and_refuses_a_second(tmp_path):
    code = "import os, time; print('training', os.getpid(), flush=True); time.sleep(30)"
    run = _run_with_script(tmp_path, code)
    pid, log = start_training(run)
    try:
        assert int((run / "logs" / "train.pid").read_text().split()[0]) == pid
        assert running_pid(run) == pid
        # launch.sh execs the trainer: the pid the wizard shows is the trainer's own.
        said = lambda: log.exists() and f"training {pid}" in log.read_text()  # noqa: E731 - a condition to poll, read in one line
        for _ in range(600):  # bounded poll of a file another process writes
            if said():
                break
            time.sleep(0.05)
        assert said()
        with pytest.raises(WizardError, match=f"pid {pid}"):
            start_training(run)
    finally:
        os.killpg(pid, signal.SIGTERM)
        _reap(pid)
    assert running_pid(run) is None
    assert log == run / "logs" / "train.log"


def test_background_start_without_launch_sh_or_run_json_names_the_fix(tmp_path):
    with pytest.raises(WizardError, match="plan the run again"):
        start_training(tmp_path / "run")
    assert not Path(tmp_path / "run" / "logs" / "train.pid").exists()


def test_an_old_run_folder_gets_its_launch_sh_from_run_json(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    spec = LaunchSpec(argv=[sys.executable, "-c", "print('ok')"], cwd=tmp_path)
    (run / "run.json").write_text(json.dumps({"launch": spec.to_json()}))
    pid, log = start_training(run)
    _wait_group_gone(pid)
    assert (run / "launch.sh").is_file() and "ok" in log.read_text()


def test_the_log_and_pid_file_the_plan_recorded_are_the_ones_used(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    log, pid_file = run / "full" / "train.log", run / "full" / "train.pid"
    spec = LaunchSpec(argv=[sys.executable, "-c", "print('ok')"], cwd=tmp_path, log=log, pid_file=pid_file)
    (run / "run.json").write_text(json.dumps({"launch": spec.to_json()}))
    pid, started_log = start_training(run)
    _wait_group_gone(pid)
    assert started_log == log and "ok" in log.read_text()
    assert int(pid_file.read_text().split()[0]) == pid
    assert not (run / "logs" / "train.log").exists()


def test_a_run_json_pointing_outside_the_run_folder_is_not_followed(tmp_path):
    # A damaged or planted run.json must not make the wizard write its pid over another file.
    run = tmp_path / "run"
    run.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    spec = LaunchSpec(argv=[sys.executable, "-c", "print('ok')"], cwd=tmp_path, log=victim, pid_file=victim)
    (run / "run.json").write_text(json.dumps({"launch": spec.to_json()}))
    pid, log = start_training(run)
    _wait_group_gone(pid)
    assert victim.read_text() == "keep me"
    assert log == run / "logs" / "train.log" and "ok" in log.read_text()
    assert int((run / "logs" / "train.pid").read_text().split()[0]) == pid


def test_a_training_that_ended_is_not_live_and_leaves_no_zombie(tmp_path):
    # The Monitor's Stop (or a crash) ends the trainer while the wizard, its parent, stays open:
    # the pid must read as ended at once, not "live" until the wizard exits.
    run = _run_with_script(tmp_path, "import time; time.sleep(30)")
    pid, _log = start_training(run)
    os.killpg(pid, signal.SIGTERM)
    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)  # ended, not reaped: a zombie of ours
    assert running_pid(run) is None
    with pytest.raises(ChildProcessError):  # running_pid reaped it
        os.waitpid(pid, os.WNOHANG)
    _wait_group_gone(pid)
