"""The demo from a folder of clips and its dataset.json to a tuned config, in the skill's order:
the dataset checked on the Paths screen, the one-sample preprocess before autotune, the full one
after it, then the Done screen."""

from __future__ import annotations

from ltx_wizard.core.preprocess.preprocess_state import read_state
from ltx_wizard.tui.screens.autotune import AutotuneScreen
from ltx_wizard.tui.screens.done import DoneScreen
from ltx_wizard.tui.screens.paths import PathsScreen
from ltx_wizard.tui.screens.preprocess import PreprocessScreen
from tests.tui.helpers import FAST_SIM, make_app, settle, wait_until


def _verdict(app, name: str) -> str:
    return str(app.screen.query_one(f"#field-{name}").query_one(".verdict").render())


async def test_demo_from_clips_preprocesses_one_sample_then_autotunes_then_all(demo_root, monkeypatch):
    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "0")  # the simulated preprocessor
    app = make_app(demo_root, demo_data="clips", **FAST_SIM)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await wait_until(
            pilot, lambda: isinstance(app.screen, PathsScreen) and app.screen._checked is not None
        )
        assert str(app.state.request.data_root).endswith("dataset.json")
        assert app.screen.query_one("#dataset-options").display
        await pilot.press("ctrl+n")
        await wait_until(
            pilot,
            lambda: (
                type(app.screen).__name__ == "SummaryScreen"
                and getattr(app.screen, "draft", None) is not None
            ),
        )
        plan = app.screen.draft.plan_text
        assert "clip_02.mp4" in plan and "no audio stream" in plan  # the silent clip, named
        await pilot.press("a")
        await wait_until(pilot, lambda: isinstance(app.screen, AutotuneScreen))
        # the one-sample preprocess ran first, on its own screen, under autotune's
        assert [s.step for s in app.screen_stack if isinstance(s, PreprocessScreen)] == ["one"]
        run = app.state.run_dir
        state = read_state(run)
        assert state.one_sample_done and not state.full_done
        assert not state.data_root.exists()  # the full preprocess waits for autotune
        # `query`, not `query_one`: the screen may be pushed before its buttons are mounted
        await wait_until(
            pilot,
            lambda: (
                not isinstance(app.screen, AutotuneScreen)
                or any(not b.disabled for b in app.screen.query("#continue"))
            ),
            limit_s=300,
        )
        assert isinstance(app.screen, AutotuneScreen), [type(s).__name__ for s in app.screen_stack]
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: isinstance(app.screen, DoneScreen))
        await settle(pilot)  # the Done screen has drawn its launch line
        assert "launch.sh" in str(app.screen.query_one("#launch-line").render())
        assert [s.step for s in app.screen_stack if isinstance(s, PreprocessScreen)] == ["one", "full"]
        assert read_state(run).full_done
        assert sorted(p.name for p in (state.data_root / "latents" / "videos").iterdir()) == [
            "clip_00.pt",
            "clip_01.pt",
            "clip_02.pt",
            "clip_03.pt",
        ]


async def test_a_mismatching_precomputed_is_refused_and_another_folder_chosen(
    demo_root, monkeypatch, tmp_path
):
    from ltx_wizard.demo.builder import build_demo
    from ltx_wizard.demo.lookalike_latents import video_latents, write_pt

    demo = build_demo(demo_root)  # the app rebuilds the same files over it
    stale = demo.dataset_file.parent / ".precomputed" / "latents" / "videos" / "clip_00.pt"
    write_pt(stale, video_latents(97, 512, 512))
    before = stale.read_bytes()
    app = make_app(demo_root, demo_data="clips")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await wait_until(
            pilot, lambda: isinstance(app.screen, PathsScreen) and app.screen._checked is not None
        )
        # the form runs plan's own data step: the refusal is under the field, before the plan
        data = app.screen._results["data_root"]
        assert not data.ok and "does not match this plan" in data.error
        assert "output folder field" in data.error
        await pilot.press("ctrl+n")
        assert isinstance(app.screen, PathsScreen)  # Continue is refused until it is fixed
        app.screen.query_one("#precomputed-dir").value = str(tmp_path / "fresh")
        await wait_until(
            pilot,
            lambda: (
                app.screen._checked is not None
                and app.screen._checked[0].precomputed_dir == tmp_path / "fresh"
            ),
        )
        assert app.screen._results["data_root"].ok
        await pilot.press("ctrl+n")
        await wait_until(
            pilot,
            lambda: (
                type(app.screen).__name__ == "SummaryScreen"
                and getattr(app.screen, "draft", None) is not None
            ),
        )
        assert str(tmp_path / "fresh") in app.screen.draft.config_text
    assert stale.read_bytes() == before  # never overwritten


async def test_some_silent_clips_offer_the_video_only_box_their_warning_advises(demo_root):
    # the demo's dataset.json: 3 clips, clip_02 without sound, under t2v_lora (it trains audio)
    from textual.widgets import Checkbox

    app = make_app(demo_root, demo_data="clips")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await wait_until(
            pilot, lambda: isinstance(app.screen, PathsScreen) and app.screen._checked is not None
        )
        status = app.screen.query_one("#field-data_root").query_one(".field-status")
        assert "leaves it out" in str(status.render())
        box = app.screen.query_one("#video-only", Checkbox)
        assert box.display and not box.value  # offered, not ticked for the user
        assert "clips without sound" in str(box.label)
