"""<run>/launch.sh: written with every plan, valid bash, and it starts exactly the planned launch."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.launch import accelerate_config
from ltx_wizard.core.launch.script import copy_line, render_script, write_script
from ltx_wizard.demo.lookalike_checkout import make_checkout
from ltx_wizard.demo.lookalike_models import make_checkpoint, make_data_root, make_gemma_dir
from ltx_wizard.core.io.run_meta import LaunchSpec, read_run_meta

FAKE_UV = """#!/bin/sh
# Stands in for uv: reports where and how it was started, then keeps running if asked to.
echo "cwd=$(pwd)"
echo "cvd=$CUDA_VISIBLE_DEVICES"
echo "unbuffered=$PYTHONUNBUFFERED columns=$COLUMNS"
echo "pid=$$"
for a in "$@"; do echo "arg=$a"; done
if [ -n "$FAKE_HOLD" ]; then echo holding; while [ ! -e "$FAKE_HOLD" ]; do sleep 0.05; done; fi
"""


@pytest.fixture(autouse=True)
def _no_accelerate(monkeypatch):
    monkeypatch.setattr(accelerate_config, "accelerate_available", lambda: False)


@pytest.fixture
def planned(tmp_path, capsys):
    """A real `plan` run for two H100s read from a CSV (simulated GPUs would launch the simulated
    trainer), with spaces in every path."""
    csv = tmp_path / "gpus.csv"
    csv.write_text("name, memory.total [MiB]\n" + "NVIDIA H100 80GB HBM3, 81559 MiB\n" * 2)
    checkout = make_checkout(tmp_path / "LTX 2")
    ckpt = make_checkpoint(tmp_path / "my models" / "ltx-2.safetensors")
    gemma = make_gemma_dir(tmp_path / "my models" / "gemma-3")
    data = make_data_root(tmp_path / "cat clips" / ".precomputed", 3)
    code = main(
        [
            "plan",
            "--trainer-root",
            str(checkout),
            "--checkpoint",
            str(ckpt),
            "--text-encoder",
            str(gemma),
            "--data-root",
            str(data),
            "--workspace",
            str(tmp_path / "work space"),
            "--run-name",
            "run",
            "--from-csv",
            str(csv),
        ]
    )
    assert code == 0, capsys.readouterr().err
    return tmp_path / "work space" / "run", checkout


def fake_bin(tmp_path: Path) -> dict[str, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    uv = bin_dir / "uv"
    uv.write_text(FAKE_UV)
    uv.chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}


def test_every_plan_writes_an_executable_launch_sh_that_bash_accepts(planned):
    run, _ = planned
    script = run / "launch.sh"
    assert os.access(script, os.X_OK)
    assert subprocess.run(["bash", "-n", str(script)], capture_output=True).returncode == 0
    meta = read_run_meta(run)  # recorded for later commands
    spec = meta.launch
    assert spec is not None and spec.argv[:4] == ["uv", "run", "accelerate", "launch"]
    assert spec.log == run / "logs" / "train.log" and spec.pid_file == run / "logs" / "train.pid"
    assert meta.num_gpus == 2 and meta.nodes == 1
    assert copy_line(run) == f"bash '{run}/launch.sh'"


def test_launch_sh_runs_the_planned_command_in_its_folder_and_logs_it(planned, tmp_path):
    run, checkout = planned
    env = fake_bin(tmp_path)
    done = subprocess.run(
        ["bash", str(run / "launch.sh")], env=env, capture_output=True, text=True, cwd=tmp_path, timeout=60
    )
    assert done.returncode == 0, done.stderr
    spec = read_run_meta(run).launch
    lines = done.stdout.splitlines()  # shown live in the terminal ...
    log = (run / "logs" / "train.log").read_text()
    assert all(line in log for line in lines)  # ... and appended to the log
    assert f"cwd={checkout.resolve() / 'packages/ltx-trainer'}" in lines
    assert "unbuffered=1 columns=250" in lines  # live, unwrapped log lines
    assert [line[4:] for line in lines if line.startswith("arg=")] == spec.argv[1:]
    assert str(run / "config.yaml") in spec.argv  # the space-holding path is one argument
    pid = int((run / "logs" / "train.pid").read_text().split()[0])  # "<pid> <start time>"
    assert f"pid={pid}" in lines  # exec: the pid in the file is the trainer's own


def test_a_second_start_is_refused_while_the_first_runs(planned, tmp_path):
    run, _ = planned
    env = fake_bin(tmp_path)
    env["FAKE_HOLD"] = str(tmp_path / "release")
    first = subprocess.Popen(
        ["bash", str(run / "launch.sh")], env=env, stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        assert _wait_holding(first)
        second = subprocess.run(
            ["bash", str(run / "launch.sh")], env=env, capture_output=True, text=True, timeout=60
        )
        assert second.returncode == 1
        assert f"already runs as pid {first.pid}" in second.stderr
    finally:
        (tmp_path / "release").touch()
        first.wait(timeout=60)


def _wait_holding(proc) -> bool:
    for line in proc.stdout:
        if line.strip() == "holding":
            return True
    return False


def test_simulated_launch_is_labelled_and_names_the_real_command(tmp_path):
    spec = LaunchSpec(argv=[sys.executable, "-m", "x"], cwd=tmp_path, env={"A_B": "1 2"}, simulated=True)
    text = render_script(tmp_path, spec, planned_line="cd /c && uv run python scripts/train.py c.yaml")
    assert "SIMULATED" in text and "uv run python scripts/train.py c.yaml" in text
    assert "export A_B='1 2'" in text
    path = write_script(tmp_path, spec)
    assert subprocess.run(["bash", "-n", str(path)]).returncode == 0
