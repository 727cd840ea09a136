"""The Preprocess screen at the audio gate: where the trainer's environment cannot decode sound,
nothing is encoded and the screen names the fix; v (the user's consent) trains video only and
the walk goes on to autotune."""

from __future__ import annotations

from ltx_wizard.core.dataset.sources import audio_folder
from ltx_wizard.core.io.yaml_patch import get_dotted, load_yaml
from ltx_wizard.core.preprocess.preprocess_state import read_state
from ltx_wizard.demo.sim.stand_in import AUDIO_DECODE_ENV
from ltx_wizard.tui.screens.autotune import AutotuneScreen
from ltx_wizard.tui.screens.paths import PathsScreen
from ltx_wizard.tui.screens.preprocess import PreprocessScreen
from tests.tui.helpers import FAST_SIM, make_app, settle, wait_until


def _strategy(run):
    return get_dotted(load_yaml((run / "config.yaml").read_text()), "training_strategy")


async def test_no_audio_decoder_stops_with_the_fix_and_v_trains_video_only(demo_root, monkeypatch):
    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "0")  # the simulated preprocessor
    monkeypatch.setenv(AUDIO_DECODE_ENV, "0")  # the trainer's environment has no torchcodec
    app = make_app(demo_root, demo_data="clips", **FAST_SIM)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await wait_until(
            pilot, lambda: isinstance(app.screen, PathsScreen) and app.screen._checked is not None
        )
        await pilot.press("ctrl+n")
        await wait_until(
            pilot,
            lambda: type(app.screen).__name__ == "SummaryScreen" and getattr(app.screen, "draft", None),
        )
        await pilot.press("a")
        status = lambda: str(app.screen.query_one("#pp-status").render())  # noqa: E731
        await wait_until(pilot, lambda: isinstance(app.screen, PreprocessScreen) and "Failed" in status())
        shown = status()
        assert "cannot decode the clips' sound" in shown and "`uv sync`" in shown
        assert "v trains video only" in shown
        run = app.state.run_dir
        assert audio_folder(_strategy(run)) == "audio_latents"  # nothing changed yet
        assert not (run / "overfit" / ".precomputed").exists()  # nothing encoded
        assert read_state(run).audio_gate is None
        await pilot.press("v")  # the consent
        await wait_until(pilot, lambda: isinstance(app.screen, AutotuneScreen), limit_s=300)
        state = read_state(run)
        assert state.video_only and state.one_sample_done
        assert audio_folder(_strategy(run)) is None
        assert not (run / "overfit" / ".precomputed" / "audio_latents").exists()
        # autotune runs on the video-only sample to its end (its screen then offers Continue)
        await wait_until(
            pilot,
            lambda: (
                not isinstance(app.screen, AutotuneScreen)
                or any(not b.disabled for b in app.screen.query("#continue"))
            ),
            limit_s=300,
        )
        assert isinstance(app.screen, AutotuneScreen)
