"""Copy over SSH (issue 45, 5): the Results screen's c puts one scp line for the prompt's renders
and the checkpoint they were made with on the local clipboard (OSC 52, Textual's
copy_to_clipboard), and its toast says so and shows the line whole, to select where the terminal
does not take OSC 52."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys

import pytest

from ltx_wizard.core.evaluation.job import Command, EvalJob, write_job
from ltx_wizard.tui.screens.monitor import MonitorScreen
from ltx_wizard.tui.screens.results import ResultsScreen
from ltx_wizard.tui.screens.results.clip_access import scp_line
from tests.eval_runs import laid_out_run
from tests.tui.helpers import make_app, settle, wait_until

SSH = "192.0.2.7 50022 10.1.2.3 2222"  # client, its port, this box, the port sshd listens on


@pytest.fixture(autouse=True)
def _env(monkeypatch):
    monkeypatch.setenv("SSH_CONNECTION", SSH)
    monkeypatch.setenv("LTX_WIZARD_GRAPHICS", "halfblocks")


def test_one_line_for_files_and_folders_splits_back_into_them(tmp_path):
    """As printed, the line is scp with the port, -r for a folder, and each file as user@host:path,
    then `.`: a stand-in scp on PATH receives exactly those arguments."""
    folder, file = tmp_path / "eval dir", tmp_path / "lora's weights.safetensors"
    folder.mkdir()
    file.write_bytes(b"w")
    line = scp_line([folder, file], env={"SSH_CONNECTION": SSH}, folder=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "scp"
    fake.write_text(f"#!{sys.executable}\nimport json, sys\nprint(json.dumps(sys.argv[1:]))\n")
    fake.chmod(0o755)
    argv = shlex.split(line)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    out = subprocess.run(argv, env=env, capture_output=True, text=True, check=True).stdout
    user = argv[4].split("@")[0]
    assert out.strip() == (f'["-r", "-P", "2222", "{user}@10.1.2.3:{folder}", "{user}@10.1.2.3:{file}", "."]')


async def test_c_copies_the_renders_and_their_checkpoint_and_says_so(tmp_path):
    run = laid_out_run(tmp_path)
    checkpoint = run / "outputs/checkpoints/lora_weights_step_00050.safetensors"
    write_job(
        run, EvalJob(str(checkpoint), "the final checkpoint", [], [], (960, 544, 89), None, Command([], "."))
    )
    app = make_app(run_dir=str(run))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, MonitorScreen))
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, ResultsScreen))
        screen = app.screen
        await wait_until(pilot, lambda: screen._shown is not None)
        await settle(pilot)
        await pilot.press("c")
        renders = [run / "outputs/eval" / r.file for r in screen._renders(screen._shown)]
        assert len(renders) == 2  # with the LoRA and without
        assert app.clipboard == scp_line([*renders, checkpoint])
        assert app.clipboard.startswith("scp -P 2222 ") and f"@10.1.2.3:{checkpoint}" in app.clipboard
        toast = [str(n.message) for n in app._notifications][-1]
        assert "OSC 52" in toast and toast.endswith(app.clipboard)  # the line whole, to select
        shown = str(screen.query_one("#results-copy").render())
        assert shown.startswith("c copies: scp -P 2222 ")
