"""Journey: a two-node plan made on a laptop (`--simulate 2xh100 --nodes 2`) taken to rented GPUs
with SkyPilot, every step a command run as a user runs it (its own process, found on PATH):

plan -> `ltx-wizard launch RUN --target skypilot --bucket NAME --smoke` (its printed commands read
against RUN/sky/README.md) -> what SkyPilot does on the two nodes, stood in on this host: the run
folder uploaded as .skyignore says, run.sh on rank 0 and rank 1 with SKYPILOT_* set (a stand-in uv
records accelerate's words and writes the trainer's log and checkpoint into the mounted outputs)
-> the bucket's contents copied home into RUN/outputs -> `ltx-wizard status RUN` reads them.
SkyPilot's own parser checks the files (the test skips, saying why, where SkyPilot is not installed).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.model_tree import ModelTree
from tests.monitor_runs import sample_log
from tests.sky_kit import COMMIT, sky_python

HERE = Path(__file__).resolve().parents[2]
IPS = "10.1.0.4\n10.1.0.5\n"
# The node's uv: the resume check's python runs, accelerate is recorded; rank 0 "trains" (prints the
# trainer's log, saves its step-50 checkpoint into the mounted outputs, as trainer.py names them).
NODE_UV = """#!/bin/bash
[ "$1" = run ] || exit 9
shift
[ "$1" = --no-sync ] && shift
if [ "$1 $2" = "python -" ]; then shift; exec {python} "$@"; fi
printf '%s\\0' "$@" > "$RECORD_DIR/node-$SKYPILOT_NODE_RANK"
if [ "$SKYPILOT_NODE_RANK" = 0 ]; then
  cat {log}
  mkdir -p "$LTX_SKY_ROOT/outputs/checkpoints"
  echo weights > "$LTX_SKY_ROOT/outputs/checkpoints/lora_weights_step_00050.safetensors"
  echo state > "$LTX_SKY_ROOT/outputs/checkpoints/training_state_step_00050.pt"
fi
"""


def _wizard(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("ltx-wizard", path=env["PATH"])
    assert exe, "ltx-wizard is not on PATH"
    return subprocess.run([exe, *args], env=env, capture_output=True, text=True, timeout=600)


def _node(root: Path, rank: int, tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    node_env = {
        **env,
        "LTX_SKY_ROOT": str(root),
        "RECORD_DIR": str(tmp_path / "record"),
        "SKYPILOT_NODE_RANK": str(rank),
        "SKYPILOT_NODE_IPS": IPS,
        "SKYPILOT_NUM_NODES": "2",
        "SKYPILOT_NUM_GPUS_PER_NODE": "2",
        "PATH": f"{tmp_path / 'node-bin'}{os.pathsep}{env['PATH']}",
    }
    script = root / "run" / "sky" / "run.sh"
    return subprocess.run(
        ["bash", str(script), "task"], env=node_env, capture_output=True, text=True, timeout=120
    )


def _stand_ins(tmp_path: Path) -> None:
    bin_dir = tmp_path / "node-bin"
    bin_dir.mkdir()
    log = tmp_path / "trainer.log"
    log.write_text(sample_log("ok_single_gpu_cols250"))
    (bin_dir / "uv").write_text(NODE_UV.format(python=sys.executable, log=log))
    (bin_dir / "git").write_text(f"#!/bin/bash\necho {COMMIT}\n")  # `git rev-parse HEAD` in the clone
    for name in ("uv", "git"):
        (bin_dir / name).chmod(0o755)
    (tmp_path / "record").mkdir()


def test_a_two_node_plan_goes_to_rented_gpus_and_its_results_come_home(tmp_path):
    python = sky_python()
    env = {
        **os.environ,
        "PYTHONPATH": str(HERE),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "LTX_WIZARD_SKY_PYTHON": python,
    }
    tree = ModelTree(tmp_path, sim="2xh100")
    (tree.checkout / ".git").mkdir()
    (tree.checkout / ".git" / "HEAD").write_text(COMMIT + "\n")
    planned = _wizard(*tree.args("--nodes", "2"), env=env)
    assert planned.returncode == 0, planned.stderr
    run = tree.run

    launched = _wizard(
        "launch", str(run), "--target", "skypilot", "--bucket", "ltx-journey", "--smoke", env=env
    )
    assert launched.returncode == 0, launched.stderr
    printed = launched.stdout.splitlines()
    readme = (run / "sky" / "README.md").read_text()
    assert len(printed) == 3 and all(f"       {line}\n" in readme for line in printed)
    assert printed[1].split()[-1] == str(run / "sky" / "task.yaml")

    # SkyPilot uploads the run folder (without what .skyignore names) and mounts the bucket
    root = tmp_path / "node"
    ignored = {
        line.strip("/") for line in (run / ".skyignore").read_text().splitlines() if line.startswith("/")
    }

    def left_out(folder: str, names: list[str]) -> list[str]:
        return [n for n in names if Path(folder) == run and n in ignored]

    shutil.copytree(run, root / "run", ignore=left_out)
    assert not (root / "run" / "outputs").exists() and (root / "run" / "sky" / "run.sh").exists()
    (root / "LTX-2" / "packages" / "ltx-trainer").mkdir(parents=True)
    _stand_ins(tmp_path)
    for rank in (0, 1):
        node = _node(root, rank, tmp_path, env)
        assert node.returncode == 0, node.stderr
    words = {rank: (tmp_path / "record" / f"node-{rank}").read_text().split("\0") for rank in (0, 1)}
    for rank, argv in words.items():
        assert argv[argv.index("--machine_rank") + 1] == str(rank)
        assert argv[argv.index("--main_process_ip") + 1] == "10.1.0.4"
        assert (
            argv[argv.index("--num_machines") + 1] == "2" and argv[argv.index("--num_processes") + 1] == "4"
        )

    # home: the bucket's contents copied into the run folder's outputs/, then status as for a local run
    shutil.copytree(root / "outputs", run / "outputs", dirs_exist_ok=True)
    status = _wizard("status", str(run), env=env)
    assert status.returncode == 0, status.stderr
    assert "Training: finished" in status.stdout
    assert "lora_weights_step_00050.safetensors (step 50, with its training state)" in status.stdout
