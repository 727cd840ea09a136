"""Checkpoints kept for comparison, planned and then left by a run: `plan --simulate` patches
checkpoints.interval and keep_last_n, plan.md lists the steps, and `bash launch.sh` (the simulated
trainer, which saves and cleans up as the real one) leaves exactly those checkpoints."""

from __future__ import annotations

import os
import re
import subprocess

from ltx_wizard.cli import main
from ltx_wizard.core.launch import accelerate_config
from ltx_wizard.demo.builder import build_demo

PRESET = "rtx5090"


def test_a_simulated_run_leaves_the_checkpoints_plan_md_lists(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(accelerate_config, "accelerate_available", lambda: False)
    demo = build_demo(tmp_path / "demo", simulate=PRESET)
    for shipped in (demo.checkout / "packages/ltx-trainer/configs").glob("*.yaml"):
        text = shipped.read_text("utf-8")  # the trainer's default keeps the last few only
        shipped.write_text(text.replace("keep_last_n: -1   # -1 keeps every one", "keep_last_n: 3"), "utf-8")
    argv = [
        "--simulate",
        PRESET,
        "plan",
        "--trainer-root",
        str(demo.checkout),
        "--checkpoint",
        str(demo.checkpoint),
    ]
    argv += ["--text-encoder", str(demo.text_encoder), "--data-root", str(demo.data_root)]
    assert main([*argv, "--workspace", str(tmp_path / "ws"), "--run-name", "run"]) == 0
    run = tmp_path / "ws" / "run"
    capsys.readouterr()
    plan = (run / "plan.md").read_text("utf-8")
    listed = re.search(r"^- 5 checkpoints kept, at steps ([0-9, ]+):", plan, re.M)
    assert listed, plan
    steps = [int(s.replace(",", "")) for s in re.split(r", (?=[0-9])", listed.group(1))]

    env = {**os.environ, "LTX_WIZARD_SIM_SPEED": "0"}
    done = subprocess.run(
        ["bash", str(run / "launch.sh")], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    left = sorted((run / "outputs" / "checkpoints").glob("lora_weights_step_*.safetensors"))
    assert [int(p.stem.rsplit("_", 1)[1]) for p in left] == steps
