"""The Results screen and the validation samples dialog: opened from the Monitor (e, v), the plan
before an evaluation with its prompts edited, started and stopped in the background, the renders
as keyframe contact sheets, play and copy."""

from __future__ import annotations

import json

import pytest

from ltx_wizard.core.evaluation.job import read_state
from ltx_wizard.demo.tiny_video import write_render
from ltx_wizard.tui.screens.results.clip_access import player, scp_line
from ltx_wizard.tui.dialogs.eval_prompts import EvalPromptsDialog
from ltx_wizard.tui.dialogs.samples import SamplesDialog
from ltx_wizard.tui.screens.monitor import MonitorScreen
from ltx_wizard.tui.screens.results import ResultsScreen
from ltx_wizard.tui.widgets.keyframes import HALF, KeyframeStrip
from tests.eval_runs import finished_run, laid_out_run
from tests.monitor_runs import MARKER, sample_log
from tests.tui.helpers import make_app, settle, wait_until


@pytest.fixture(autouse=True)
def _plain_env(monkeypatch):
    monkeypatch.delenv("TMUX", raising=False)
    monkeypatch.delenv("SSH_CONNECTION", raising=False)
    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "0")
    monkeypatch.setenv("LTX_WIZARD_GRAPHICS", "halfblocks")  # whatever the terminal running them


async def _results(pilot) -> ResultsScreen:
    await wait_until(
        pilot, lambda: isinstance(pilot.app.screen, MonitorScreen) and pilot.app.screen.status is not None
    )
    await pilot.press("e")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ResultsScreen))
    await settle(pilot)
    return pilot.app.screen


async def _sheets(pilot, screen, count):
    await wait_until(
        pilot, lambda: len([s for s in screen.query(KeyframeStrip) if s.found is not None]) == count
    )
    return list(screen.query(KeyframeStrip))


async def test_renders_side_by_side_as_half_block_keyframes(tmp_path):
    run = laid_out_run(tmp_path)
    app = make_app(run_dir=str(run))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _results(pilot)
        strips = await _sheets(pilot, screen, 2)
        assert [s.label.split(" · ")[0] for s in strips] == ["LoRA", "no LoRA"]
        assert all("int8-quanto (training stack)" in s.label for s in strips)
        assert all(len(s.found.frames) == 4 and s.found.count == 9 for s in strips)
        drawn = str(strips[0].render())
        assert HALF in drawn and drawn.count("\n") >= 3
        assert strips[0].found.frames != strips[1].found.frames  # LoRA on and off differ
        head = str(screen.query_one("#results-head").render())
        assert "the final checkpoint, step 50" in head
        await pilot.press("down")  # the next prompt: its own renders
        await settle(pilot)
        strips = await _sheets(pilot, screen, 2)
        assert strips[0].path.name == "01_a-cat-in-space.mp4"
        await pilot.press("c")
        assert app.clipboard == scp_line([strips[0].path, strips[1].path])  # with and without the LoRA
        assert app.clipboard.startswith("scp ") and app.clipboard.endswith(" .")


async def test_play_says_what_is_missing_or_why_it_cannot(tmp_path, monkeypatch):
    run = laid_out_run(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    app = make_app(run_dir=str(run))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _results(pilot)
        await _sheets(pilot, screen, 2)
        await pilot.press("p")
        await pilot.pause()
        assert any("no terminal video player found" in n.message for n in app._notifications)
        bin_dir = tmp_path / "bin"
        bin_dir.mkdir()
        (bin_dir / "mpv").write_text("#!/bin/sh\nexit 0\n")
        (bin_dir / "mpv").chmod(0o755)
        monkeypatch.setenv("PATH", str(bin_dir))
        assert player(screen.query(KeyframeStrip).first().path)[:2] == [str(bin_dir / "mpv"), "--vo=tct"]
        await pilot.press("b")
        await pilot.pause()
        assert any("cannot be handed to mpv" in n.message for n in app._notifications)


async def test_plan_edit_start_and_see_the_new_renders(model_tree, capsys):
    run = finished_run(model_tree(), capsys, holdout=0)
    (run / "logs" / "train.log").write_text(MARKER.format(pid=4321) + sample_log("ok_single_gpu_cols250"))
    app = make_app(run_dir=str(run), simulate="h100")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _results(pilot)
        await wait_until(pilot, lambda: screen.prompts is not None)
        assert screen.has_class("planning")
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, EvalPromptsDialog))
        app.screen.query_one("#prompts-out-of-distribution").text = "a kite in a storm"
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: app.screen is screen)
        lines = [str(o.prompt) for o in screen.query_one("#results-list")._options]
        assert any("Out-of-distribution 1: a kite in a storm" in line for line in lines)
        assert not any("Out-of-distribution 2" in line for line in lines)
        await pilot.press("s")
        await wait_until(
            pilot,
            lambda: (read_state(run) or None) is not None and read_state(run).state == "done",
            limit_s=240,
        )
        await wait_until(pilot, lambda: not screen.has_class("planning"))
        manifest = json.loads((run / "outputs/eval/prompts.json").read_text())["renders"]
        assert "out-of-distribution/01_a-kite-in-a-storm.mp4" in manifest
        assert "out-of-distribution/01_a-kite-in-a-storm.pipelines-base.mp4" in manifest


async def test_a_running_evaluation_is_stopped_after_asking(model_tree, capsys, monkeypatch):
    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "0.05")
    run = finished_run(model_tree(), capsys, holdout=0)
    (run / "logs" / "train.log").write_text(MARKER.format(pid=4321) + sample_log("ok_single_gpu_cols250"))
    app = make_app(run_dir=str(run), simulate="h100")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _results(pilot)
        await wait_until(pilot, lambda: screen.setup is not None)
        await pilot.press("s")
        await wait_until(pilot, lambda: screen.running, limit_s=60)
        assert "Running: trainer validation with the LoRA" in str(screen.query_one("#results-head").render())
        await pilot.press("x")
        await pilot.press("y")
        await wait_until(pilot, lambda: read_state(run).state == "stopped", limit_s=90)
        await wait_until(pilot, lambda: "Stopped by you" in str(screen.query_one("#results-head").render()))


async def test_the_monitor_shows_the_latest_validation_round(tmp_path):
    from tests.monitor_runs import make_run

    run = make_run(tmp_path, sample_log("ok_single_gpu_cols250"), checkpoints=((50, True),))
    for step in (20, 50):
        write_render(run / "outputs/samples" / f"step_{step:06d}_1.mp4", "a kite", 42, None, 89)
    app = make_app(run_dir=str(run))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, MonitorScreen))
        await pilot.press("v")
        await wait_until(pilot, lambda: isinstance(app.screen, SamplesDialog))
        strips = await _sheets(pilot, app.screen, 1)
        assert "Validation samples of step 50 (1)" in str(app.screen.query_one(".dialog-title").render())
        assert strips[0].label.startswith("1. a kite over the sea")  # config.yaml's prompt 1
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, MonitorScreen))


async def test_a_production_render_names_its_entry_point_and_what_it_was_fed(tmp_path):
    from ltx_wizard.core.evaluation.layout import Render, eval_dir, read_manifest, write_manifest

    run = laid_out_run(tmp_path)
    manifest = read_manifest(run)
    name = "in-distribution/01_a-red-kite.pipelines.mp4"
    write_render(eval_dir(run) / name, "a red kite over a grey beach", 42, "lora", 89)
    manifest.renders[name] = Render(
        name,
        "in-distribution",
        "a red kite over a grey beach",
        42,
        True,
        "ltx-pipelines",
        "bf16, not quantized",
        (576, 512, 89),
        "dataset.json row 2",
        pipeline="ltx_pipelines.ic_lora",
        conditioning="reference video: /data/r2.mp4",
    )
    write_manifest(run, manifest)
    app = make_app(run_dir=str(run))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _results(pilot)
        strips = await _sheets(pilot, screen, 3)
        assert strips[2].label == "LoRA · ltx-pipelines ic_lora · bf16, not quantized"
        title = str(screen.query_one("#sheet-title").render())
        assert "ltx-pipelines fed reference video: /data/r2.mp4" in title
