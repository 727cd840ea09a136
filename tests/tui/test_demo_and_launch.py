"""The demo folder builder and the background start of launch.sh (no UI needed)."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from ltx_wizard.core.demo import DEMO_PRESET, build_demo
from ltx_wizard.core.errors import WizardError
from ltx_wizard.core.launch_script import write_script
from ltx_wizard.core.model_checks import run_checks
from ltx_wizard.core.run_meta import LaunchSpec
from ltx_wizard.tui.background import running_pid, start_training


def test_demo_folder_passes_every_check_and_rebuilds_in_place(tmp_path):
    first = build_demo(tmp_path / "demo")
    again = build_demo(tmp_path / "demo", simulate="rtx5090")
    assert first.checkpoint == again.checkpoint and again.simulate == "rtx5090"
    assert first.simulate == DEMO_PRESET
    items = run_checks(checkpoint=first.checkpoint, text_encoder=first.text_encoder,
                       data_root=first.data_root, trainer_root=first.checkout)
    assert [i.name for i in items if not i.ok] == []
    assert "3 samples" in next(i.summary for i in items if i.name == "data_root")
    # The 19 B-parameter checkpoint is sparse: the whole demo stays tiny on disk.
    used = sum(p.stat().st_blocks * 512 for p in (tmp_path / "demo").rglob("*") if p.is_file())
    assert used < 5_000_000


def _run_with_script(tmp_path: Path, code: str) -> Path:
    run = tmp_path / "run"
    write_script(run, LaunchSpec(argv=[sys.executable, "-c", code], cwd=tmp_path))
    return run


def test_background_start_runs_launch_sh_writes_pid_and_refuses_a_second(tmp_path):
    code = "import os, time; print('training', os.getpid(), flush=True); time.sleep(30)"
    run = _run_with_script(tmp_path, code)
    pid, log = start_training(run)
    try:
        assert int((run / "logs" / "train.pid").read_text()) == pid
        assert running_pid(run) == pid
        # launch.sh execs the trainer: the pid the wizard shows is the trainer's own.
        said = lambda: log.exists() and f"training {pid}" in log.read_text()  # noqa: E731
        for _ in range(600):  # bounded poll of a file another process writes
            if said():
                break
            time.sleep(0.05)
        assert said()
        with pytest.raises(WizardError, match=f"pid {pid}"):
            start_training(run)
    finally:
        os.killpg(pid, signal.SIGTERM)
        os.waitpid(pid, 0)
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
    (run / "run.json").write_text(json.dumps({"launch": spec.model_dump(mode="json")}))
    pid, log = start_training(run)
    os.waitpid(pid, 0)
    assert (run / "launch.sh").is_file() and "ok" in log.read_text()
