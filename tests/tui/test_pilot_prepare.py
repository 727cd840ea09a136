"""The Prepare screen: raw clips (a long one with cuts, a rotated phone clip, a silent one) to
<run>/dataset/dataset.json through dialogs, then on to the paths, the plan and autotune; a
failure said on the screen; Esc cancelling a running step; F4 skipping to the paths."""

from __future__ import annotations

import json
from pathlib import Path

from ltx_wizard.tui.dialogs.confirm import ConfirmDialog
from ltx_wizard.tui.dialogs.spot_check import SpotCheckDialog
from ltx_wizard.tui.screens.autotune import AutotuneScreen
from ltx_wizard.tui.screens.paths import PathsScreen
from ltx_wizard.tui.screens.prepare import PrepareScreen
from tests.tui.helpers import FAST_SIM, make_app, settle, wait_until


def _field(app, name: str) -> str:
    return app.screen.query_one(f"#input-{name}").value


async def _to_prepare(pilot, app):
    await settle(pilot)
    await pilot.press("ctrl+n")
    await wait_until(pilot, lambda: isinstance(app.screen, PrepareScreen))
    await wait_until(pilot, lambda: (app.demo.root / "raw-clips" / "quiet.mp4").is_file())
    await settle(pilot)


async def test_raw_clips_become_a_dataset_and_the_run_goes_on_to_autotune(demo_root, monkeypatch):
    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "0")  # the simulated preprocessor
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    app = make_app(demo_root, demo_data="raw", **FAST_SIM)
    async with app.run_test(size=(120, 40)) as pilot:
        await _to_prepare(pilot, app)
        assert _field(app, "source") == str(demo_root / "raw-clips")
        screen = app.screen
        screen.query_one("#prep-split").value = True
        screen.query_one("#prep-holdout").value = "1"
        screen.query_one("#prep-trigger").value = "sks"
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        assert "3 scenes" in app.screen.question  # the count, before the scenes are used
        await pilot.press("y")
        await wait_until(
            pilot, lambda: isinstance(app.screen, ConfirmDialog) and "rotated" in app.screen.question
        )
        await pilot.press("y")
        await wait_until(pilot, lambda: isinstance(app.screen, SpotCheckDialog))
        assert len(app.screen.shown) == 3 and all(c.startswith("A ") for _, c in app.screen.shown)
        await pilot.press("a")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, PrepareScreen) and app.screen.result is not None,
            limit_s=120,
        )
        result = app.screen.result
        rows = json.loads(result.dataset_file.read_text())
        held = result.dataset_file.parent / "holdout.jsonl"
        assert len(held.read_text().splitlines()) == 1 and len(result.held_out) == 1
        videos = [r["video"] for r in rows] + list(result.held_out)
        assert sum("long_take-Scene-" in v for v in videos) == 3 and "rotated/phone.mp4" in videos
        assert all(r["caption"] and "sks" not in r["caption"] for r in rows)
        log = "\n".join(app.screen.said)
        assert "videos/quiet.mp4: no audio stream" in log and "plan --video-only" in log
        assert "fixed by the upright copy rotated/phone.mp4" in log
        await pilot.press("ctrl+n")  # Continue: the dataset goes to the paths screen
        await wait_until(
            pilot, lambda: isinstance(app.screen, PathsScreen) and app.screen._checked is not None
        )
        request = app.state.request
        assert request.data_root == result.dataset_file and request.lora_trigger == "sks"
        assert request.resolution_buckets == result.bucket
        assert app.target_run_dir == result.run_dir
        await pilot.press("ctrl+n")
        await wait_until(
            pilot,
            lambda: (
                type(app.screen).__name__ == "SummaryScreen"
                and getattr(app.screen, "draft", None) is not None
            ),
            limit_s=120,
        )
        assert app.screen.draft.run_dir == result.run_dir
        await pilot.press("a")
        await wait_until(pilot, lambda: isinstance(app.screen, AutotuneScreen), limit_s=120)
        await wait_until(
            pilot, lambda: not app.state.autotune_running and app.state.summary is not None, limit_s=300
        )
        assert app.state.summary.trials and (result.run_dir / "autotune.log").is_file()


async def test_a_failure_is_said_on_the_screen_and_the_form_stays(demo_root, tmp_path):
    app = make_app(demo_root, demo_data="raw")
    async with app.run_test(size=(120, 40)) as pilot:
        await _to_prepare(pilot, app)
        app.screen.query_one("#input-source").value = str(tmp_path / "nowhere")
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: not app.screen.running and app.screen.has_class("-failed"))
        status = str(app.screen.query_one("#prep-status").render())
        assert "Not prepared: " in status and "nowhere is neither a folder nor a file" in status
        assert app.screen.query_one("#body").display


async def test_escape_cancels_a_running_step_and_f4_skips_to_the_paths(demo_root, monkeypatch):
    from tests.prepare_kit import record_servers
    from ltx_wizard.core.proc.table import group_alive

    monkeypatch.setenv("LTX_WIZARD_SIM_CAPTION_DELAY", "30")  # the captioner is slow
    servers = record_servers(monkeypatch)
    app = make_app(demo_root, demo_data="raw")
    async with app.run_test(size=(120, 40)) as pilot:
        await _to_prepare(pilot, app)
        app.screen.query_one("#prep-holdout").value = "0"
        await pilot.press("ctrl+n")
        await wait_until(
            pilot, lambda: isinstance(app.screen, ConfirmDialog) and "rotated" in app.screen.question
        )
        await pilot.press("n")
        run = Path(app.workspace)
        spot_log = lambda: next(run.glob("*/logs/prepare-captions-spot.log"), None)  # noqa: E731
        await wait_until(pilot, lambda: spot_log() is not None)  # captioning, slowly
        await pilot.press("escape")  # cancels the running flow
        await wait_until(pilot, lambda: isinstance(app.screen, PrepareScreen) and not app.screen.running)
        assert "cancelled" in str(app.screen.query_one("#prep-status").render())
        assert len(servers) == 1  # the server it started is stopped too, its whole group
        assert not group_alive(servers[0])
        await pilot.press("f4")
        await wait_until(pilot, lambda: isinstance(app.screen, PathsScreen))
        assert app.state.request.data_root is None  # nothing prepared: the field asks for it
