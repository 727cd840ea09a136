"""slurm.sbatch: valid bash, and what each node runs, under stand-ins for srun, scontrol and uv."""

from __future__ import annotations

import copy

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ltx_wizard.core.launch import accelerate_config
from ltx_wizard.core.gpu.assessment import assess
from ltx_wizard.core.gpu.devices import ProbeResult
from ltx_wizard.core.gpu.presets import preset_gpus
from ltx_wizard.demo.lookalike_checkout import make_checkout
from ltx_wizard.demo.lookalike_models import make_checkpoint, make_data_root, make_gemma_dir
from ltx_wizard.core.plan.run_plan import PlanRequest, prepare_plan, write_plan
from ltx_wizard.core.io.yaml_patch import get_dotted, load_yaml

BASH = shutil.which("bash")
pytestmark = pytest.mark.skipif(BASH is None, reason="needs bash")
HOSTS = ("gpu-a17", "gpu-b03", "gpu-c11")

# Stand-ins: srun runs its command once per node with that node's SLURM_NODEID, as Slurm does
# with one task per node; scontrol expands the node list; uv records what accelerate would get.
FAKE_SRUN = """#!/bin/bash
while [[ "$1" == -* ]]; do shift; done
for ((i = 0; i < SLURM_JOB_NUM_NODES; i++)); do
  SLURM_NODEID=$i "$@" || exit $?
done
"""
FAKE_SCONTROL = """#!/bin/bash
if [ "$1 $2" = "show hostnames" ]; then printf '%s\\n' {hosts}; exit 0; fi
echo "$*" >> "$RECORD_DIR/scontrol"
"""
FAKE_UV = """#!/bin/bash
[ "$1 $2" = "run --no-sync" ] || {{ echo "uv: unexpected $*" >&2; exit 9; }}
shift 2
if [ "$1" = python ]; then shift; exec {python} "$@"; fi
printf '%s\\0' "$PWD" "$@" > "$RECORD_DIR/node-$SLURM_NODEID"
"""


@pytest.fixture(autouse=True)
def _no_accelerate(monkeypatch):
    monkeypatch.setattr(accelerate_config, "accelerate_available", lambda: False)


def _plan(tmp_path: Path, nodes: int = 3, mode: str = "lora", sim: str = "2xh100"):
    # A space and a quote in the paths: every value must reach the nodes exactly.
    root = tmp_path / "shared fs" / "it's"
    request = PlanRequest(
        trainer_root=make_checkout(root / "LTX-2"),
        checkpoint=make_checkpoint(root / "models" / "ltx-2.safetensors"),
        text_encoder=make_gemma_dir(root / "models" / "gemma"),
        data_root=make_data_root(root / "data" / ".precomputed", 4),
        workspace=root / "runs",
        run_name="cats",
        training_mode=mode,
        nodes=nodes,
        slurm_partition="gpu",
        slurm_time="2-00:00:00",
    )
    draft = prepare_plan(request, assess(ProbeResult(source="simulated", gpus=preset_gpus(sim))))
    write_plan(draft)
    return draft


def _run(script: Path, tmp_path: Path, *, nodes: int = 3, **env_extra: str):
    bin_dir = tmp_path / "bin"
    record = tmp_path / "record"
    bin_dir.mkdir(exist_ok=True)
    record.mkdir(exist_ok=True)
    for name, text in (
        ("srun", FAKE_SRUN),
        ("scontrol", FAKE_SCONTROL.format(hosts=" ".join(HOSTS))),
        ("uv", FAKE_UV.format(python=sys.executable)),
    ):
        if not (bin_dir / name).exists():  # a test may have put its own stand-in there
            (bin_dir / name).write_text(text)
            (bin_dir / name).chmod(0o755)
    env = {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "RECORD_DIR": str(record),
        "SLURM_JOB_ID": "4242",
        "SLURM_JOB_NUM_NODES": str(nodes),
        "SLURM_JOB_NODELIST": "gpu-[a17,b03,c11]",
        "HOME": str(tmp_path),
        **env_extra,
    }
    proc = subprocess.run(
        [BASH, str(script)], env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path, check=False
    )
    nodes_seen = {}
    for f in sorted(record.glob("node-*")):
        cwd, *argv = f.read_text().rstrip("\0").split("\0")
        nodes_seen[int(f.name.split("-")[1])] = (cwd, argv)
    return proc, nodes_seen


def test_script_is_valid_bash_with_the_requested_resources(tmp_path):
    draft = _plan(tmp_path)
    script = draft.multinode.sbatch_path
    assert subprocess.run([BASH, "-n", str(script)], capture_output=True).returncode == 0
    lines = script.read_text().splitlines()
    for wanted in (
        "#SBATCH --nodes=3",
        "#SBATCH --ntasks-per-node=1",
        "#SBATCH --gpus-per-node=2",
        "#SBATCH --cpus-per-task=16",
        "#SBATCH --time=2-00:00:00",
        "#SBATCH --requeue",
        "#SBATCH --partition=gpu",
        "#SBATCH --job-name=cats",
    ):
        assert wanted in lines
    # the run folder's path needs quoting: Slurm's own lines must not carry it
    assert not any(line.startswith("#SBATCH --output") for line in lines)
    assert any(line.startswith("# export NCCL_SOCKET_IFNAME=") for line in lines)


def test_each_node_runs_the_launch_with_its_own_rank(tmp_path):
    draft = _plan(tmp_path)
    plan = draft.multinode
    proc, nodes = _run(plan.sbatch_path, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert sorted(nodes) == [0, 1, 2]
    for rank, (cwd, argv) in nodes.items():
        assert Path(cwd) == plan.trainer_dir  # run in the checkout, the same path on every node
        assert argv == plan.node_argv(str(rank), HOSTS[0])[3:]  # after `uv run --no-sync`
        assert argv[argv.index("--machine_rank") + 1] == str(rank)
    assert "main gpu-a17" in proc.stdout
    assert f"config {plan.config}" in proc.stdout  # no checkpoint yet: a fresh start


def test_a_requeued_job_resumes_from_the_latest_checkpoint(tmp_path):
    pytest.importorskip("yaml")  # the script's resume step runs in the trainer's env (PyYAML)
    draft = _plan(tmp_path)
    plan = draft.multinode
    ckpts = plan.output_dir / "checkpoints"
    ckpts.mkdir(parents=True)
    (ckpts / "lora_weights_step_00500.safetensors").write_bytes(b"{}")
    proc, nodes = _run(plan.sbatch_path, tmp_path)
    assert proc.returncode == 0, proc.stderr
    for _, argv in nodes.values():
        assert argv[argv.index("scripts/train.py") + 1] == str(plan.resume_config)
    planned = load_yaml(plan.config.read_text())
    resumed = load_yaml(plan.resume_config.read_text())
    # The trainer's own field (ltx_trainer/config.py ModelConfig.load_checkpoint), set to the
    # folder; everything else is config.yaml's, under the same names.
    assert get_dotted(resumed, "model.load_checkpoint") == str(ckpts)
    assert get_dotted(planned, "model.load_checkpoint", "absent") is None
    resumed = copy.deepcopy(resumed)  # the parse is shared and frozen: change a copy
    resumed["model"]["load_checkpoint"] = None
    assert resumed == planned


def test_the_time_limit_signal_requeues_the_job(tmp_path):
    draft = _plan(tmp_path, nodes=2)
    script = draft.multinode.sbatch_path
    # srun that lasts until the batch script is signalled, as a training run would
    slow = tmp_path / "slow"
    slow.mkdir()
    (slow / "srun").write_text("#!/bin/bash\nkill -USR1 $PPID\nsleep 1\n")
    (slow / "srun").chmod(0o755)
    proc, _ = _run(
        script,
        tmp_path,
        nodes=2,
        PATH=f"{slow}{os.pathsep}{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}",
    )
    assert "requeueing job 4242" in proc.stdout
    assert (tmp_path / "record" / "scontrol").read_text() == "requeue 4242\n"


def test_outside_slurm_or_with_other_node_counts_it_stops(tmp_path):
    draft = _plan(tmp_path, nodes=2)
    script = draft.multinode.sbatch_path
    proc, nodes = _run(script, tmp_path, nodes=3)
    assert proc.returncode == 1 and "got 3 nodes, planned 2" in proc.stderr and not nodes
    proc = subprocess.run(
        [BASH, str(script)], capture_output=True, text=True, env={"PATH": os.environ["PATH"]}, check=False
    )
    assert proc.returncode == 1 and "submit it with sbatch" in proc.stderr


def test_a_node_without_the_shared_data_stops(tmp_path):
    draft = _plan(tmp_path, nodes=2)
    script = draft.multinode.sbatch_path
    # the batch host sees the data; the nodes look it up under their own DATA_ROOT
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "srun").write_text(
        '#!/bin/bash\nwhile [[ "$1" == -* ]]; do shift; done\n'
        'DATA_ROOT=/nonexistent/data SLURM_NODEID=1 "$@"\n'
    )
    (tmp_path / "bin" / "srun").chmod(0o755)
    text = script.read_text()
    assert "srun --kill-on-bad-exit=1" in text
    proc, nodes = _run(script, tmp_path, nodes=2)
    assert proc.returncode == 1 and not nodes
    assert "node 1" in proc.stderr and "/nonexistent/data not found" in proc.stderr
