"""The per-node launch, for real: two "machines" on localhost meet through accelerate (torchrun).

Only the training script is swapped for a probe (gloo, CPU), so the flags the wizard emits are the
ones that start and join the processes. It also shows the fact plan.md warns about: the trainer's
`LOCAL_RANK == 0` holds once per machine, while global rank 0 sits on machine 0.
"""

from __future__ import annotations

import dataclasses
import json
import os
import socket
import subprocess
import sys

import pytest

from ltx_wizard.demo.lookalike_checkout import make_checkout
from ltx_wizard.core.launch.multinode import TRAIN_SCRIPT, plan_multinode

PROBE = """\
import json, os, sys
import torch.distributed as dist
dist.init_process_group("gloo")
seen = [None] * dist.get_world_size()
dist.all_gather_object(seen, [os.environ["RANK"], os.environ["LOCAL_RANK"], os.environ["GROUP_RANK"]])
if os.environ["RANK"] == "0":
    print("WORLD " + json.dumps({"seen": seen, "args": sys.argv[1:]}), flush=True)
dist.destroy_process_group()
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_two_machines_join_with_the_planned_flags(tmp_path):
    pytest.importorskip("accelerate")  # the extra; it brings torch
    checkout = make_checkout(tmp_path / "LTX-2")
    plan = plan_multinode(
        nodes=2,
        gpus_per_node=2,
        training_mode="lora",
        trainer_dir=checkout / "packages/ltx-trainer",
        shipped_accelerate_dir=checkout / "packages/ltx-trainer/configs/accelerate",
        run_dir=tmp_path / "run",
        config=tmp_path / "run/config.yaml",
        data_root=tmp_path / "data",
        output_dir=tmp_path / "run/outputs",
    )
    plan = dataclasses.replace(plan, main_port=_free_port())
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE)
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "OMP_NUM_THREADS": "1"}
    procs = []
    try:
        for rank in (1, 0):
            argv = plan.node_argv(str(rank), "127.0.0.1")
            assert argv[:5] == ["uv", "run", "--no-sync", "accelerate", "launch"]
            argv = [sys.executable, "-m", "accelerate.commands.launch", *argv[5:]]
            argv[argv.index(TRAIN_SCRIPT)] = str(probe)
            procs.append(
                subprocess.Popen(
                    argv, cwd=tmp_path, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
                )
            )
        outputs = [p.communicate(timeout=240)[0] for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert all(p.returncode == 0 for p in procs), "\n".join(outputs)
    line = next(t for t in outputs[1].splitlines() if t.startswith("WORLD "))  # machine 0 printed it
    world = json.loads(line[len("WORLD ") :])
    # [global rank, LOCAL_RANK, machine] of all four processes, in global rank order
    assert world["seen"] == [["0", "0", "0"], ["1", "1", "0"], ["2", "0", "1"], ["3", "1", "1"]]
    assert world["args"] == [str(plan.config), "--disable-progress-bars"]
