"""`plan --nodes N`: the numbers, accelerate's multi-node launch, and plan.md's caveats."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.launch import accelerate_config
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.launch.multinode import MAX_NODES, parse_nodes
from ltx_wizard.core.io.yaml_patch import get_dotted, load_yaml

H100_CSV = "name, memory.total [MiB]\n" + "NVIDIA H100 80GB HBM3, 81559 MiB\n" * 4


@pytest.fixture(autouse=True)
def _no_accelerate(monkeypatch):
    monkeypatch.setattr(accelerate_config, "accelerate_available", lambda: False)


@pytest.fixture
def box(model_tree):
    return model_tree(sim="4xh100")


def plan_json(capsys, argv) -> dict:
    assert main([*argv, "--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("text", ["0", "1025", "-2", "two", "2.5", ""])
def test_bad_node_counts_are_refused_in_one_line(box, capsys, text):
    assert main(box.args("--nodes", text)) == 2
    err = capsys.readouterr().err
    assert err.startswith("ltx-wizard: --nodes") and err.count("\n") == 1
    assert f"1..{MAX_NODES}" in err
    assert not box.run.exists()  # nothing written


def test_node_count_bounds():
    assert parse_nodes("1") == 1 and parse_nodes(" 1024 ") == MAX_NODES
    with pytest.raises(UsageError):
        parse_nodes(1025)


def test_two_nodes_total_the_gpus_and_keep_the_effective_batch(box, capsys):
    data = plan_json(capsys, box.args("--nodes", "2", "--effective-batch", "16"))
    assert (data["nodes"], data["gpus_per_node"], data["total_gpus"]) == (2, 4, 8)
    assert data["slurm_script"] == str(box.run / "slurm.sbatch")
    config = load_yaml((box.run / "config.yaml").read_text())
    # 16 = batch 1 x accumulation 2 x 8 GPUs: the multi-GPU rule, over both nodes
    assert get_dotted(config, "optimization.gradient_accumulation_steps") == 2
    plan = (box.run / "plan.md").read_text()
    assert "| Effective batch | 16 (batch x accumulation x 8 GPUs) |" in plan
    assert "2 nodes x 4 GPUs = **8 GPUs**, DDP" in plan
    meta = json.loads((box.run / "run.json").read_text())
    assert (meta["num_gpus"], meta["nodes"]) == (4, 2)  # autotune's trials: one node's GPUs


def test_plan_md_states_the_caveats_as_the_trainer_has_them(box, capsys):
    plan_json(capsys, box.args("--nodes", "3"))
    plan = (box.run / "plan.md").read_text()
    assert "Untested on a real cluster" in plan
    assert "`LOCAL_RANK == 0`" in plan and "each of the 3 nodes" in plan
    assert "`accelerator.is_main_process`" in plan  # checkpoints: once, global rank 0
    assert "Same commit, same paths on every node" in plan
    assert "Shared output folder" in plan
    assert "Autotune stays single-node" in plan and "one node's 4 GPUs" in plan
    assert f"cd {box.run} && sbatch slurm.sbatch" in plan
    assert '--machine_rank "$SLURM_NODEID"' in plan


def test_full_finetune_counts_gpus_over_nodes_with_the_per_gpu_tier(box, capsys):
    # one 80 GB GPU per node: 2 in all, so the full fine-tune rule holds, under FSDP
    data = plan_json(capsys, box.args("--nodes", "2", "--training-mode", "full", sim="h100"))
    assert data["total_gpus"] == 2
    script = (box.run / "slurm.sbatch").read_text()
    assert "configs/accelerate/fsdp.yaml" in script and "--num_processes 2" in script
    # the tier is per GPU: two 32 GB cards per node stay refused
    assert main(box.args("--nodes", "2", "--training-mode", "full", "--force", sim="2xrtx5090")) == 2
    assert "full fine-tune needs" in capsys.readouterr().err


def test_per_node_gpus_come_from_one_nodes_csv(box, capsys, tmp_path):
    csv = tmp_path / "node.csv"
    csv.write_text(H100_CSV)
    data = plan_json(capsys, box.args("--nodes", "2", "--from-csv", str(csv), sim=None))
    assert (data["gpus_per_node"], data["total_gpus"]) == (4, 8)
    assert "#SBATCH --gpus-per-node=4" in (box.run / "slurm.sbatch").read_text()


def test_a_login_node_without_gpus_is_told_to_use_a_csv(box, capsys, monkeypatch):
    from ltx_wizard.core.gpu import probe
    from ltx_wizard.core.gpu.devices import ProbeResult

    monkeypatch.setattr(probe, "resolve_probe", lambda **_: ProbeResult(source="nvml", gpus=()))
    assert main(box.args("--nodes", "2", "--vram-gb", "80", sim=None)) == 2
    err = capsys.readouterr().err
    assert "login node" in err and "--from-csv FILE" in err
    assert not box.run.exists()


def test_one_node_writes_no_slurm_script(box, capsys):
    data = plan_json(capsys, box.args("--nodes", "1"))
    assert "slurm_script" not in data and not (box.run / "slurm.sbatch").exists()
    assert "Several machines" not in (box.run / "plan.md").read_text()


def test_bad_slurm_values_are_refused(box, capsys):
    assert main(box.args("--nodes", "2", "--slurm-time", "1 day")) == 2
    assert "--slurm-time" in capsys.readouterr().err
    assert main(box.args("--nodes", "2", "--slurm-partition", "gpu;rm -rf")) == 2
    assert "--slurm-partition" in capsys.readouterr().err
    assert not box.run.exists()


def test_node_command_flags_are_accepted_by_the_installed_accelerate(box, capsys):
    pytest.importorskip("accelerate")  # the extra (CI installs it); imports torch, so lazily
    from accelerate.commands.launch import _validate_launch_command, launch_command_parser

    plan_json(capsys, box.args("--nodes", "2", "--training-mode", "full", sim="2xh100"))
    script = (box.run / "slurm.sbatch").read_text()
    launch = next(line for line in script.splitlines() if line.startswith("LAUNCH=("))
    train = next(line for line in script.splitlines() if line.startswith("TRAIN=("))
    words = shlex.split(launch[len("LAUNCH=(") : -1]) + ["--machine_rank", "1"]
    words += shlex.split(train[len("TRAIN=(") : -1])
    words = [w.replace("$MAIN_IP", "gpu-a17").replace("$TRAIN_CONFIG", "/r/config.yaml") for w in words]
    assert words[:5] == ["uv", "run", "--no-sync", "accelerate", "launch"]
    args = launch_command_parser().parse_args(words[5:])  # an unknown flag exits here
    assert (args.num_machines, args.num_processes, args.machine_rank) == (2, 4, 1)
    assert (args.main_process_ip, args.main_process_port) == ("gpu-a17", 29500)
    assert args.same_network and args.rdzv_backend == "static"
    assert args.training_script == "scripts/train.py"
    assert args.training_script_args == ["/r/config.yaml", "--disable-progress-bars"]
    # The flags win over the shipped file's num_processes 4 / num_machines 1; FSDP comes from it.
    args, _, _ = _validate_launch_command(args)
    assert (args.num_processes, args.num_machines, args.use_fsdp) == (4, 2, True)
    assert (
        Path(args.config_file)
        == (box.checkout / "packages/ltx-trainer/configs/accelerate/fsdp.yaml").resolve()
    )


def test_slurm_options_without_nodes_are_said_to_be_ignored(box, capsys):
    data = plan_json(capsys, box.args("--slurm-partition", "gpu"))
    assert any("apply only with --nodes" in w for w in data["warnings"])
    assert not (box.run / "slurm.sbatch").exists()


def test_a_reopened_run_folder_submits_the_job(box, capsys, tmp_path):
    # launch.sh is what "Start training" runs, with or without a plan in memory: it submits.
    import os
    import subprocess

    from ltx_wizard.core.io.run_meta import read_run_meta

    csv = tmp_path / "node.csv"  # the GPUs of a real node: simulated ones launch the stand-in
    csv.write_text(H100_CSV)
    plan_json(capsys, box.args("--nodes", "2", "--from-csv", str(csv), sim=None))
    spec = read_run_meta(box.run).launch
    assert (spec.argv, spec.cwd) == (["sbatch", str(box.run / "slurm.sbatch")], box.run)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "sbatch").write_text('#!/bin/sh\necho "Submitted batch job 42 ($*) from $(pwd)"\n')
    (bin_dir / "sbatch").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        ["bash", str(box.run / "launch.sh")], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert (
        f"Submitted batch job 42 ({box.run / 'slurm.sbatch'}) from {box.run}"
        in (box.run / "logs" / "train.log").read_text()
    )
