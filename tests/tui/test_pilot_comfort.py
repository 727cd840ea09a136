"""Comfort (issue 45, 6): footer keys run their action on a click, the Done screen scrolls from its
default focus, the Autotune table's selected row has its whole reason under the table at 80x24,
and a toast says the outcome of each long action when it finishes."""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.widgets import DataTable
from textual.widgets._footer import FooterKey

from ltx_wizard.core.autotune.outputs.presenter import reason_cell
from ltx_wizard.core.evaluation.job import EvalState, write_state
from ltx_wizard.core.evaluation.job_process import record_self
from ltx_wizard.demo.sim.stand_in import AUDIO_DECODE_ENV
from ltx_wizard.tui.screens.autotune import AutotuneScreen, column_widths
from ltx_wizard.tui.screens.done import DoneScreen
from ltx_wizard.tui.screens.monitor import MonitorScreen
from ltx_wizard.tui.screens.paths import PathsScreen
from ltx_wizard.tui.screens.preprocess import PreprocessScreen
from ltx_wizard.tui.screens.results import ResultsScreen
from tests.eval_runs import laid_out_run
from tests.tui.helpers import FAST_SIM, make_app, settle, to_summary, wait_until


def toasts(app) -> list[str]:
    return [f"{n.title}: {n.message}" for n in app._notifications]


async def _autotune_done(pilot) -> AutotuneScreen:
    await to_summary(pilot)
    await pilot.press("a")
    app = pilot.app
    await wait_until(
        pilot,
        lambda: (
            isinstance(app.screen, AutotuneScreen)
            and not app.state.autotune_running
            and app.state.summary is not None
        ),
    )
    await settle(pilot)
    return app.screen


async def test_a_footer_key_clicked_runs_its_action(tmp_path):
    run = laid_out_run(tmp_path)
    app = make_app(run_dir=str(run))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, MonitorScreen))
        await settle(pilot)
        key = next(k for k in app.screen.query(FooterKey) if k.action == "results")
        assert key.description == "Evaluate"
        await pilot.click(key)
        await wait_until(pilot, lambda: isinstance(app.screen, ResultsScreen))


async def test_the_done_screen_scrolls_by_page_down_and_end_from_its_default_focus(demo_root, scripted):
    app = make_app(demo_root, at="summary", engine_factory=scripted)
    async with app.run_test(size=(80, 24)) as pilot:
        await _autotune_done(pilot)
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: isinstance(app.screen, DoneScreen))
        await settle(pilot)
        body = app.screen.query_one("#body", VerticalScroll)
        assert app.focused is app.screen.query_one("#copy")  # the default focus: a button
        assert body.max_scroll_y > 0 and body.scroll_y == 0  # more than 80x24 shows
        await pilot.press("pagedown")
        await wait_until(pilot, lambda: body.scroll_y > 0)
        await pilot.press("end")
        await wait_until(pilot, lambda: body.scroll_y == body.max_scroll_y)
        await pilot.press("home")
        await wait_until(pilot, lambda: body.scroll_y == 0)


async def test_the_selected_trials_whole_reason_shows_under_the_table_at_80x24(demo_root, scripted):
    app = make_app(demo_root, at="summary", engine_factory=scripted)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _autotune_done(pilot)
        table = screen.query_one("#trials", DataTable)
        line = screen.query_one("#reason-line")
        width = column_widths(80)["Reason"]
        trials = {str(t.index): reason_cell(t) for t in app.state.summary.trials}
        # the newest row is selected when the run ends; its reason is longer than its cell
        assert len(trials["3"]) > width
        assert str(line.render()) == f"3: {trials['3']}"
        assert line.region.bottom <= 24 and line.region.width >= len(str(line.render()))
        table.focus()
        await pilot.press("up")
        await wait_until(pilot, lambda: str(line.render()) == f"2: {trials['2']}")


async def test_the_last_trial_is_selected_when_its_events_land_after_the_end(demo_root, scripted):
    # trial 3 is sent without a pause, so the screen handles all its events once the run has
    # ended and the table (the first focusable widget) has the focus
    scripted.script = "late_end"
    app = make_app(demo_root, at="summary", engine_factory=scripted)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _autotune_done(pilot)
        table = screen.query_one("#trials", DataTable)
        assert table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value == "3"
        assert str(screen.query_one("#reason-line").render()).startswith("3: ")


async def test_autotune_says_its_outcome_in_a_toast(demo_root, scripted):
    app = make_app(demo_root, at="summary", engine_factory=scripted)
    async with app.run_test(size=(80, 24)) as pilot:
        await _autotune_done(pilot)
        assert "Autotune: Autotune finished: winner trial 3 (optimizer_type -> adamw)" in " ".join(
            toasts(app)
        )


async def test_a_finished_evaluation_says_so_in_a_toast(tmp_path):
    run = laid_out_run(tmp_path)
    record_self(run)  # this process stands for the evaluation's (its pid record checked)
    write_state(run, EvalState("running", "trainer validation with the LoRA", 0, 2))
    app = make_app(run_dir=str(run))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, MonitorScreen))
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, ResultsScreen) and app.screen.running)
        assert not [t for t in toasts(app) if t.startswith("Evaluation")]
        write_state(run, EvalState("done", "finished", 2, 2))
        await wait_until(pilot, lambda: "Evaluation: Done: the renders below" in toasts(app))


async def test_preprocessing_says_its_outcome_in_a_toast(demo_root, monkeypatch):
    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "0")  # the simulated preprocessor
    monkeypatch.setenv(AUDIO_DECODE_ENV, "0")  # it fails first: the trainer cannot decode sound
    app = make_app(demo_root, demo_data="clips", **FAST_SIM)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await wait_until(
            pilot, lambda: isinstance(app.screen, PathsScreen) and app.screen._checked is not None
        )
        await pilot.press("ctrl+n")
        await wait_until(
            pilot, lambda: type(app.screen).__name__ == "SummaryScreen" and getattr(app.screen, "draft", None)
        )
        await pilot.press("a")
        await wait_until(pilot, lambda: any(t.startswith("Preprocessing failed") for t in toasts(app)))
        assert isinstance(app.screen, PreprocessScreen)
        failed = next(t for t in toasts(app) if t.startswith("Preprocessing failed"))
        assert "cannot decode the clips' sound" in failed
        await pilot.press("v")  # video only: the step again, to its end
        await wait_until(pilot, lambda: any(t.startswith("Preprocessing finished") for t in toasts(app)))
        finished = next(t for t in toasts(app) if t.startswith("Preprocessing finished"))
        assert "done, verified: 1 sample(s) encoded" in finished
        # the walk goes on to autotune: left once it has ended, not halfway through a screen change
        await wait_until(pilot, lambda: isinstance(app.screen, AutotuneScreen), limit_s=300)
        await wait_until(
            pilot, lambda: app.state.summary is not None or app.state.autotune_error, limit_s=300
        )
        await settle(pilot)


async def test_a_toasts_own_line_breaks_stay_breaks_and_its_text_stays_as_typed():
    """The Preprocess screen's toast says the step and, on a line of its own, the held-out clips:
    a newline was shown as ⏎ in the middle of the toast."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        app.notify("full preprocess: done\nHeld-out clips: 2 of 2 in [held]", title="Preprocessing finished")
        await wait_until(pilot, lambda: bool(toasts(app)))
        (shown,) = [n.message for n in app._notifications]
        assert shown == "full preprocess: done\nHeld-out clips: 2 of 2 in \\[held]"
