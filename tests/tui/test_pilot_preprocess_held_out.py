"""The Preprocess screen's full step runs the core's full step, held-out clips included: the clip
prepare held out (holdout.jsonl beside the demo's dataset.json) is encoded into the run's own
holdout/.precomputed, never into the data root (issue 44)."""

from __future__ import annotations

import json

from ltx_wizard.core.prepare.holdout import HOLDOUT_FILE
from ltx_wizard.core.preprocess.preprocess_state import read_state
from ltx_wizard.demo.lookalike_media import write_clip
from ltx_wizard.tui.screens.autotune import AutotuneScreen
from ltx_wizard.tui.screens.done import DoneScreen
from ltx_wizard.tui.screens.paths import PathsScreen
from tests.tui.helpers import FAST_SIM, make_app, settle, wait_until


async def test_the_screens_full_step_encodes_the_held_out_clip_apart(demo_root, monkeypatch):
    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "0")  # the simulated preprocessor
    app = make_app(demo_root, demo_data="clips", **FAST_SIM)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await wait_until(pilot, lambda: app.demo is not None)  # the demo's files are written
        folder = app.demo.dataset_file.parent
        write_clip(folder / "videos" / "held_00.mp4")
        row = {"caption": "A held-out cat on a sunny floor", "video": "videos/held_00.mp4"}
        (folder / HOLDOUT_FILE).write_text(json.dumps(row) + "\n", "utf-8")
        await pilot.press("ctrl+n")
        await wait_until(
            pilot, lambda: isinstance(app.screen, PathsScreen) and app.screen._checked is not None
        )
        await pilot.press("ctrl+n")
        await wait_until(
            pilot,
            lambda: type(app.screen).__name__ == "SummaryScreen" and getattr(app.screen, "draft", None),
        )
        assert f"Held-out clips: 1 in `{folder / HOLDOUT_FILE}`" in app.screen.draft.plan_text
        await pilot.press("a")
        await wait_until(
            pilot,
            lambda: (
                isinstance(app.screen, AutotuneScreen)
                and any(not b.disabled for b in app.screen.query("#continue"))
            ),
            limit_s=300,
        )
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: isinstance(app.screen, DoneScreen), limit_s=300)
        await settle(pilot)  # the Done screen drawn whole (its header too) before the app exits
        run = app.state.run_dir
        state = read_state(run)
        assert state.full_done and state.held_out.done
        assert state.held_out.encoded == ("videos/held_00.pt",)
        held = run / "holdout" / ".precomputed" / "latents" / "videos"
        assert sorted(p.name for p in held.iterdir()) == ["held_00.pt"]
        assert "held_00.pt" not in {p.name for p in (state.data_root / "latents" / "videos").iterdir()}
