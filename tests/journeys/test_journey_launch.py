"""The seam between plan and launch under --simulate: one launch.sh rule for the CLI and the TUI.

The same run planned through `ltx-wizard --simulate PRESET plan ...` and through the TUI's Summary
screen gets a launch.sh that runs the same trainer (the simulated one), and `bash launch.sh` of
the CLI-planned run trains to a finished run that `ltx-wizard status` reads back.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from ltx_wizard.cli import main
from ltx_wizard.core.launch import accelerate_config
from ltx_wizard.demo.builder import build_demo
from tests.tui.helpers import RUN_NAME, make_app, settle, to_summary

PRESET = "rtx5090"


def _exec_line(script: Path) -> list[str]:
    """The command launch.sh ends in (`exec ...`), as words, the run's own paths taken out."""
    line = [ln for ln in script.read_text().splitlines() if ln.startswith("exec ") and ">" not in ln][-1]
    return [re.sub(r".*/config\.yaml$", "<config>", w) for w in line.split()]


def _plan_cli(demo, workspace: Path) -> Path:
    code = main(
        [
            "--simulate",
            PRESET,
            "plan",
            "--trainer-root",
            str(demo.checkout),
            "--checkpoint",
            str(demo.checkpoint),
            "--text-encoder",
            str(demo.text_encoder),
            "--data-root",
            str(demo.data_root),
            "--workspace",
            str(workspace),
            "--run-name",
            "cli-run",
        ]
    )
    assert code == 0
    return workspace / "cli-run"


async def test_cli_and_tui_plans_launch_the_same_trainer_and_the_cli_one_trains(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setattr(accelerate_config, "accelerate_available", lambda: False)
    demo_root = tmp_path / "demo"
    demo = build_demo(demo_root, simulate=PRESET)

    app = make_app(demo_root, at="summary", simulate=PRESET)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_summary(pilot)
        await pilot.press("s")  # approve, skip autotune: writes the run folder
        await settle(pilot)
    tui_run = demo.workspace / RUN_NAME
    assert (tui_run / "launch.sh").is_file()

    cli_run = _plan_cli(demo, tmp_path / "ws")
    capsys.readouterr()
    tui_exec, cli_exec = _exec_line(tui_run / "launch.sh"), _exec_line(cli_run / "launch.sh")
    assert cli_exec == tui_exec
    assert "ltx_wizard.demo.sim.trainer" in cli_exec and "uv" not in cli_exec
    assert "launch.sh runs the simulated trainer" in (cli_run / "plan.md").read_text()

    # `bash launch.sh`, as printed, on a box with no uv on PATH: the simulated trainer trains
    env = {k: v for k, v in os.environ.items() if k != "PATH"}
    env.update(PATH=os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if not _has_uv(p)))
    env.update(LTX_WIZARD_SIM_SPEED="0")
    done = subprocess.run(
        ["bash", str(cli_run / "launch.sh")], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert main(["status", str(cli_run)]) == 0
    out = capsys.readouterr().out
    assert "Training: finished" in out
    assert list((cli_run / "outputs" / "checkpoints").glob("lora_weights_step_*.safetensors"))


def _has_uv(folder: str) -> bool:
    return bool(folder) and shutil.which("uv", path=folder) is not None
