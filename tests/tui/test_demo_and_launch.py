"""The demo folder builder and the background-launch helpers (no UI needed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ltx_wizard.core.demo import DEMO_PRESET, build_demo
from ltx_wizard.core.errors import WizardError
from ltx_wizard.core.launch import LaunchPlan
from ltx_wizard.core.model_checks import run_checks
from ltx_wizard.tui.background import launch_from_plan, parse_shell_line, running_pid, start_training


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


def test_launch_line_round_trips_through_plan_md(tmp_path):
    plan = LaunchPlan(argv=["uv", "run", "python", "scripts/train.py", str(tmp_path / "my run" / "config.yaml")],
                      cwd=tmp_path / "LTX 2", env={"CUDA_VISIBLE_DEVICES": "1,2"})
    text = f"# Plan\n\n```sh\n{plan.shell_line()}\n```\n"
    argv, cwd, env = parse_shell_line(launch_from_plan(text))
    assert (argv, cwd, env) == (plan.argv, plan.cwd, plan.env)
    with pytest.raises(WizardError):
        parse_shell_line("rm -rf /")


def test_background_start_writes_pid_and_refuses_a_second(tmp_path):
    run = tmp_path / "run"
    code = "import sys, time; print('training', flush=True); time.sleep(30)"
    pid, log = start_training([sys.executable, "-c", code], cwd=tmp_path, run_dir=run)
    try:
        assert int((run / "logs" / "train.pid").read_text()) == pid
        assert running_pid(run) == pid
        with pytest.raises(WizardError, match=f"pid {pid}"):
            start_training([sys.executable, "-c", "pass"], cwd=tmp_path, run_dir=run)
    finally:
        subprocess.run(["kill", str(pid)], check=False)
        import os

        os.waitpid(pid, 0)
    assert running_pid(run) is None
    assert log == run / "logs" / "train.log"


def test_background_start_of_a_missing_program_is_one_line(tmp_path):
    with pytest.raises(WizardError, match="could not start"):
        start_training([str(tmp_path / "no-such-uv")], cwd=tmp_path, run_dir=tmp_path / "run")
    assert not Path(tmp_path / "run" / "logs" / "train.pid").exists()
