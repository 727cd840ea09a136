"""Launch commands: single GPU, DDP, FSDP, CUDA_VISIBLE_DEVICES, and accelerate.yaml."""

from __future__ import annotations

import importlib.util
import shlex
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from ltx_wizard.core.launch import accelerate_config
from ltx_wizard.core.launch.launch_command import build_launch
from ltx_wizard.demo.lookalike_checkout import make_checkout


@pytest.fixture
def checkout(tmp_path) -> Path:
    return make_checkout(tmp_path / "LTX 2")  # a space, to prove the quoting


def test_single_gpu(checkout, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    plan = build_launch(checkout, Path("runs/r/config.yaml"), 1, "lora", None)
    trainer = checkout.resolve() / "packages/ltx-trainer"
    config = str(tmp_path / "runs/r/config.yaml")
    assert plan.argv == ["uv", "run", "python", "scripts/train.py", config, "--disable-progress-bars"]
    assert plan.cwd == trainer and plan.env == {} and plan.style == "single"
    assert shlex.split(plan.shell_line()) == ["cd", str(trainer), "&&", *plan.argv]


def test_ddp_for_lora_on_several_gpus_uses_the_shipped_ddp_config(checkout, tmp_path):
    plan = build_launch(checkout, tmp_path / "c.yaml", 4, "lora", None)
    assert plan.style == "ddp"
    assert plan.argv[:4] == ["uv", "run", "accelerate", "launch"]
    # the trainer docs' launch: never the user's default accelerate config
    ddp = checkout.resolve() / "packages/ltx-trainer/configs/accelerate/ddp.yaml"
    assert plan.argv[plan.argv.index("--config_file") + 1] == str(ddp) and ddp.is_file()
    i = plan.argv.index("--num_processes")
    assert plan.argv[i + 1] == "4" and "--multi_gpu" not in plan.argv
    assert plan.argv[-3:] == ["scripts/train.py", str(tmp_path / "c.yaml"), "--disable-progress-bars"]


def test_fsdp_for_full_uses_the_shipped_fsdp_config(checkout, tmp_path):
    plan = build_launch(checkout, tmp_path / "c.yaml", 2, "full", None)
    assert plan.style == "fsdp"
    fsdp = checkout.resolve() / "packages/ltx-trainer/configs/accelerate/fsdp.yaml"
    assert plan.argv[plan.argv.index("--config_file") + 1] == str(fsdp)
    assert plan.argv[plan.argv.index("--num_processes") + 1] == "2"  # shipped file says 4


def test_written_accelerate_config_is_used(checkout, tmp_path):
    mine = tmp_path / "run" / "accelerate.yaml"
    plan = build_launch(checkout, tmp_path / "c.yaml", 2, "lora", None, accelerate_config=mine)
    assert plan.argv[plan.argv.index("--config_file") + 1] == str(mine)
    assert "--multi_gpu" not in plan.argv


def test_narrowed_cuda_visible_devices_is_carried(checkout, tmp_path):
    plan = build_launch(checkout, tmp_path / "c.yaml", 2, "lora", "1,3")
    assert plan.env == {"CUDA_VISIBLE_DEVICES": "1,3"}
    assert " && CUDA_VISIBLE_DEVICES=1,3 uv run accelerate launch " in plan.shell_line()
    assert plan.argv_with_env()[:2] == ["env", "CUDA_VISIBLE_DEVICES=1,3"]


def test_accelerate_yaml_skipped_without_the_extra(monkeypatch, checkout):
    monkeypatch.setattr(accelerate_config, "accelerate_available", lambda: False)
    got = accelerate_config.render_accelerate_yaml("ddp", 2, None)
    assert got.text is None and "not installed" in got.note
    single = accelerate_config.render_accelerate_yaml("single", 1, None)
    assert single.text is None and single.note is None


@pytest.mark.skipif(importlib.util.find_spec("accelerate") is None, reason="accelerate extra absent")
def test_accelerate_yaml_from_the_shipped_file_with_the_right_count(checkout):
    shipped = checkout / "packages/ltx-trainer/configs/accelerate/fsdp.yaml"
    got = accelerate_config.render_accelerate_yaml("fsdp", 2, shipped)
    data = YAML(typ="safe").load(got.text)
    assert data["num_processes"] == 2 and data["distributed_type"] == "FSDP"
    assert "num_processes: 4" in shipped.read_text()  # the shipped file is untouched


def test_trials_start_the_planned_command_from_any_directory(checkout, tmp_path):
    # Autotune's trials put their own config after this prefix and run outside the trainer dir.
    single = build_launch(checkout, tmp_path / "c.yaml", 1, "lora", None)
    trainer = str(checkout.resolve() / "packages/ltx-trainer")
    assert single.trial_prefix() == ["uv", "run", "--directory", trainer, "python", "scripts/train.py"]
    ddp = build_launch(checkout, tmp_path / "c.yaml", 4, "lora", None)
    assert ddp.trial_prefix() == ddp.argv[:-2] and ddp.trial_prefix()[-1] == "scripts/train.py"
