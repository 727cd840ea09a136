"""run.sh, executed as SkyPilot runs it on each node (its SKYPILOT_* variables), here on localhost:
stand-ins for uv (records what accelerate gets) and git (answers the checkout's commit)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ltx_wizard.core.cloud.sky_request import SkyOptions, build_request
from ltx_wizard.core.cloud.sky_task import write_sky_files
from ltx_wizard.core.io import run_folder
from tests.sky_kit import COMMIT, planned_run

BASH = shutil.which("bash")
pytestmark = pytest.mark.skipif(BASH is None, reason="needs bash")
IPS = "10.0.0.7\n10.0.0.9\n"

FAKE_UV = """#!/bin/bash
[ "$1" = run ] || exit 9
shift
[ "$1" = --no-sync ] && shift
if [ "$1 $2" = "python -" ]; then shift; exec {python} "$@"; fi  # run.sh's resume check
printf '%s\\0' "$PWD" "$@" > "$RECORD_DIR/node-$SKYPILOT_NODE_RANK"
echo "step 1/20 trained"
"""
FAKE_GIT = """#!/bin/bash
echo "${{FAKE_COMMIT:-{commit}}}"
"""


def _node(tmp_path: Path, run: Path, rank: int, *, nodes: int, gpus: int, mode: str = "task", **extra: str):
    root = tmp_path / "node-root"  # the node's /ltx, with the run folder copied up
    if not (root / "run").exists():
        root.mkdir(exist_ok=True)
        shutil.copytree(run, root / "run")
        (root / "LTX-2" / "packages" / "ltx-trainer").mkdir(parents=True)
    bin_dir, record = tmp_path / "bin", tmp_path / "record"
    bin_dir.mkdir(exist_ok=True)
    record.mkdir(exist_ok=True)
    for name, text in (
        ("uv", FAKE_UV.format(python=sys.executable)),
        ("git", FAKE_GIT.format(commit=COMMIT)),
    ):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    env = {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(tmp_path),
        "RECORD_DIR": str(record),
        "LTX_SKY_ROOT": str(root),
        "SKYPILOT_NODE_RANK": str(rank),
        "SKYPILOT_NODE_IPS": IPS,
        "SKYPILOT_NUM_NODES": str(nodes),
        "SKYPILOT_NUM_GPUS_PER_NODE": str(gpus),
        **extra,
    }
    script = root / "run" / "sky" / "run.sh"
    proc = subprocess.run([BASH, str(script), mode], env=env, capture_output=True, text=True, timeout=120)
    seen = record / f"node-{rank}"
    argv = seen.read_text().rstrip("\0").split("\0") if seen.exists() else None
    return proc, argv, root


def _written(tmp_path: Path, nodes: int) -> Path:
    run = planned_run(tmp_path, nodes=nodes, sim="2xh100")
    write_sky_files(build_request(run, SkyOptions(bucket="ltx-out")))
    return run


def _flag(argv: list[str], name: str) -> str:
    return argv[argv.index(name) + 1]


def test_two_nodes_get_the_accelerate_arguments_of_one_launch(tmp_path):
    run = _written(tmp_path, nodes=2)
    seen = {}
    for rank in (0, 1):
        proc, argv, root = _node(tmp_path, run, rank, nodes=2, gpus=2)
        assert proc.returncode == 0, proc.stderr
        seen[rank] = argv
    trainer = str(root / "LTX-2" / "packages" / "ltx-trainer")
    for rank, (cwd, *argv) in seen.items():
        assert cwd == trainer
        assert argv[:3] == ["accelerate", "launch", "--config_file"]
        assert _flag(argv, "--num_machines") == "2"
        assert _flag(argv, "--num_processes") == "4"  # every GPU of every node
        assert _flag(argv, "--machine_rank") == str(rank)
        assert _flag(argv, "--main_process_ip") == "10.0.0.7"  # the first line of SKYPILOT_NODE_IPS
        assert _flag(argv, "--config_file") == f"{trainer}/configs/accelerate/ddp.yaml"
        assert argv[-3:] == [
            "scripts/train.py",
            str(root / "run" / "sky" / "config.yaml"),
            "--disable-progress-bars",
        ]
    # the words other than the rank are the same on both nodes
    strip = [a for a in seen[0][1:] if a != "0"], [a for a in seen[1][1:] if a != "1"]
    assert strip[0] == strip[1]
    # rank 0 keeps the log in the mounted outputs, for `status` to read from a copy of them
    assert "step 1/20 trained" in (root / "outputs" / "logs" / "train.log").read_text()


def test_a_node_count_or_commit_other_than_planned_is_refused(tmp_path):
    run = _written(tmp_path, nodes=2)
    proc, argv, _ = _node(tmp_path, run, 0, nodes=1, gpus=2)
    assert proc.returncode == 1 and argv is None
    assert "got 1 node(s) x 2 GPU(s), the plan has 2 x 2" in proc.stderr
    proc, argv, _ = _node(tmp_path, run, 1, nodes=2, gpus=2, FAKE_COMMIT="f" * 40)
    assert proc.returncode == 1 and argv is None
    assert f"the plan used {COMMIT}" in proc.stderr


def test_a_recovered_job_resumes_from_the_mounted_checkpoints(tmp_path):
    run = _written(tmp_path, nodes=2)
    root = tmp_path / "node-root"
    shutil.copytree(run, root / "run")
    (root / "LTX-2" / "packages" / "ltx-trainer").mkdir(parents=True)
    ckpts = root / "outputs" / "checkpoints"
    ckpts.mkdir(parents=True)
    (ckpts / "lora_weights_step_00500.safetensors").write_bytes(b"x")
    proc, argv, _ = _node(tmp_path, run, 0, nodes=2, gpus=2)
    assert proc.returncode == 0, proc.stderr
    resumed = root / "run" / "sky" / "resume.yaml"
    assert argv[-2] == str(resumed)
    from ltx_wizard.core.io.yaml_patch import get_dotted, load_yaml

    config = load_yaml(resumed.read_text())
    assert get_dotted(config, "model.load_checkpoint") == str(ckpts)
    # the smoke run never resumes from the real run's checkpoints
    proc, argv, _ = _node(tmp_path, run, 0, nodes=2, gpus=2, mode="smoke")
    assert argv[-2] == str(root / "run" / "sky" / "smoke-config.yaml")


def test_one_node_runs_the_plans_own_command(tmp_path):
    run = planned_run(tmp_path, sim="h100")
    write_sky_files(build_request(run, SkyOptions()))
    proc, argv, root = _node(tmp_path, run, 0, nodes=1, gpus=1)
    assert proc.returncode == 0, proc.stderr
    cwd, *words = argv
    assert words == [
        "python",
        "scripts/train.py",
        str(root / "run" / "sky" / "config.yaml"),
        "--disable-progress-bars",
    ]
    assert subprocess.run([BASH, "-n", str(run_folder.SKY_SETUP.path(run))]).returncode == 0


def test_the_main_ip_is_the_first_line_however_long_the_list(tmp_path):
    """run.sh's `set -o pipefail` made a pipe from the list into `head -n1` a race: head exits
    after the first line, and a writer still writing dies of SIGPIPE, which ended run.sh with 141
    and no word (seen once under load with two lines). A list longer than a pipe's buffer makes
    that race certain; the first line is taken without a pipe."""
    run = _written(tmp_path, nodes=2)
    ips = "10.0.0.7\n" + "".join(
        f"10.1.{i // 250}.{i % 250}\n" for i in range(7_000)
    )  # ~85 KB: over a pipe buffer, under one variable's limit
    proc, argv, _ = _node(tmp_path, run, 1, nodes=2, gpus=2, SKYPILOT_NODE_IPS=ips)
    assert proc.returncode == 0, (proc.returncode, proc.stderr)
    assert argv is not None and _flag(argv, "--main_process_ip") == "10.0.0.7"
    assert "main 10.0.0.7," in proc.stdout
