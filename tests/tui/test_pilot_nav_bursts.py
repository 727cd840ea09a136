"""Phase screens that take arguments (a run folder, a preprocessing step) open through app.nav's
burst guard too (issue 42, item 6): a second request that arrives before the first screen
showed does not stack a second copy. Before, the Monitor pushed Results itself and navigation
pushed Preprocess without the guard."""

from __future__ import annotations

from ltx_wizard.demo.sim.stand_in import AUDIO_DECODE_ENV
from ltx_wizard.tui.screens.monitor import MonitorScreen
from ltx_wizard.tui.screens.paths import PathsScreen
from ltx_wizard.tui.screens.preprocess import PreprocessScreen
from ltx_wizard.tui.screens.results import ResultsScreen
from tests.eval_runs import laid_out_run
from tests.tui.helpers import FAST_SIM, make_app, settle, wait_until


def _stacked(app, cls) -> int:
    return sum(isinstance(s, cls) for s in app.screen_stack)


async def test_results_asked_twice_from_the_monitor_opens_once(tmp_path, monkeypatch):
    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "0")
    monkeypatch.setenv("LTX_WIZARD_GRAPHICS", "halfblocks")
    app = make_app(run_dir=str(laid_out_run(tmp_path)))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(
            pilot, lambda: isinstance(app.screen, MonitorScreen) and app.screen.status is not None
        )
        monitor = app.screen
        monitor.action_results()  # both before the first Results screen is drawn
        monitor.action_results()
        await wait_until(pilot, lambda: isinstance(app.screen, ResultsScreen) and app.screen.is_mounted)
        await settle(pilot)
        assert _stacked(app, ResultsScreen) == 1
        assert app.screen_stack[-2] is monitor


async def test_autotune_asked_again_while_its_sample_preprocesses_opens_one_preprocess(
    demo_root, monkeypatch
):
    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "0")
    monkeypatch.setenv(AUDIO_DECODE_ENV, "0")  # the one-clip step stops at the audio gate and stays
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
        app.nav.open_autotune()  # a second Approve's request, the sample still pending
        await settle(pilot)
        assert [s.step for s in app.screen_stack if isinstance(s, PreprocessScreen)] == ["one"]
