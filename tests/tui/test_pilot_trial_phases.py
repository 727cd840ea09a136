"""The Autotune screen's live rows: one per running trial (GPU, phase, step, elapsed), gone when
the trial's result arrives; two side by side on a 2-GPU machine; within 80x24."""

from __future__ import annotations

from ltx_wizard.core.autotune.outputs.live_rows import RunningTrials
from ltx_wizard.core.autotune.events import TrialStarted
from ltx_wizard.core.autotune.trials import trial_runner as runner
from ltx_wizard.tui.screens.autotune import AutotuneScreen
from ltx_wizard.tui.widgets.trial_phases import TrialPhases, row_budget, shown_lines
from tests.tui.helpers import (
    FAST_SIM,
    make_app,
    to_held_trial,
    to_summary,
    wait_until,
)


def _rows(app) -> list[str] | None:
    found = app.screen.query("#trial-phases")  # None while a screen is still composing
    return found.first().lines if found else None


def _shown(app) -> bool:
    return app.screen.query_one("#trial-phases").display


async def test_a_running_trial_has_a_row_with_its_step_and_clock_until_it_ends(demo_root, scripted):
    scripted.hold_after = 2
    app = make_app(demo_root, engine_factory=scripted, at="summary")
    async with app.run_test(size=(120, 40)) as pilot:
        await to_held_trial(pilot, scripted)
        await wait_until(
            pilot, lambda: _rows(app) == ["trial 2 · GPU 0 · training · step 40/50 · 0:00"]
        )  # trial 1's row went with it
        assert _shown(app)
        app.options.clock.now += 65
        await wait_until(
            pilot,
            lambda: (
                _rows(app)
                == [  # the interval timer, not an event
                    "trial 2 · GPU 0 · training · step 40/50 · 1:05"
                ]
            ),
        )
        scripted.instances[0].cancel()
        await wait_until(pilot, lambda: not app.state.autotune_running)
        await pilot.pause()
        assert _rows(app) == [] and not _shown(app)


async def test_rows_survive_the_screen_being_popped_and_shown_again(demo_root, scripted):
    scripted.hold_after = 2
    app = make_app(demo_root, engine_factory=scripted, at="summary")
    async with app.run_test(size=(120, 40)) as pilot:
        await to_held_trial(pilot, scripted)
        app.pop_screen()
        await pilot.pause()
        app.nav.open_autotune()  # a fresh screen: the App's tracker kept every event
        await wait_until(
            pilot,
            lambda: (
                type(app.screen).__name__ == "AutotuneScreen"
                and _rows(app) == ["trial 2 · GPU 0 · training · step 40/50 · 0:00"]
            ),
        )
        scripted.instances[0].cancel()
        await wait_until(pilot, lambda: not app.state.autotune_running)


async def test_two_gpus_show_two_rows_side_by_side_at_80x24(demo_root, scripted):
    scripted.script = "side_by_side"
    app = make_app(demo_root, engine_factory=scripted, simulate="2xa6000", at="summary")
    async with app.run_test(size=(80, 24)) as pilot:
        await to_held_trial(pilot, scripted)
        await wait_until(
            pilot,
            lambda: (
                _rows(app)
                == [
                    "trial 1 · GPU 0 · training · step 20/40 · 0:00",
                    "trial 2 · GPU 1 · training · step 20/40 · 0:00",
                ]
            ),
        )
        # everything that was on the screen before the rows still is, whole
        screen = app.screen
        body = screen.query_one("#body").region
        for selector in ("#at-status", "#trials", "#trial-progress-row", "#trial-phases", "#live", "#log"):
            region = screen.query_one(selector).region
            assert region.height > 0 and body.contains_region(region), selector
        assert screen.query_one("#log").region.height >= 6  # its border and 4 lines
        assert screen.query_one("#cancel").region.bottom <= 23
        scripted.instances[0].cancel()
        await wait_until(pilot, lambda: not app.state.autotune_running)
        await pilot.pause()
        assert _rows(app) == [] and not _shown(app)


async def test_the_simulated_trainer_on_two_gpus_runs_two_trials_at_once(demo_root, monkeypatch):
    # readings every 20 ms: a simulated trial may end within the usual half second, before its
    # GPU's first reading (it failed so on a busy CI machine)
    monkeypatch.setattr(runner, "VRAM_UPDATE_S", 0.02)
    app = make_app(demo_root, simulate="2xa6000", **FAST_SIM, at="summary")
    seen: set[tuple[str, ...]] = set()
    vram: set[str] = set()  # the VRAM line: each trial reports its own GPU, both are named
    both = ("GPU 0", "GPU 1")  # side by side: not the confirmation on both GPUs ("GPUs 0-1")

    # Every state the rows and the VRAM line are drawn in, as they are drawn: sampling the screen
    # from the test's loop missed a short overlap of the two trials at load 8.
    def gpus(widget: TrialPhases) -> tuple[str, ...]:
        return tuple(row.split(" · ")[1] for row in widget.lines)

    def refresh_rows(widget: TrialPhases, _real=TrialPhases.refresh_rows) -> None:
        _real(widget)
        seen.add(gpus(widget))

    def show_live(screen: AutotuneScreen, _real=AutotuneScreen._show_live) -> None:
        _real(screen)
        if gpus(screen.query_one("#trial-phases", TrialPhases)) == both:
            vram.add(str(screen.query_one("#live").content))

    monkeypatch.setattr(TrialPhases, "refresh_rows", refresh_rows)
    monkeypatch.setattr(AutotuneScreen, "_show_live", show_live)

    def done() -> bool:
        return (
            type(app.screen).__name__ == "AutotuneScreen"
            and not app.state.autotune_running
            and app.state.summary is not None
        )

    async with app.run_test(size=(120, 40)) as pilot:
        await to_summary(pilot)
        await pilot.press("a")
        await wait_until(pilot, done)
        await pilot.pause()
        assert both in seen, seen
        assert any("GPU0 " in line and "GPU1 " in line for line in vram), vram
        table = app.screen.query_one("#trials")
        numbers = [str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)]
        trials = [n for n in numbers if n.isdigit()]
        assert trials == sorted(trials, key=int) and numbers[: len(trials)] == trials, numbers
        assert _rows(app) == [] and not _shown(app)


def test_rows_that_do_not_fit_fold_into_one_line():
    clock = lambda: 0.0  # noqa: E731 - a stopped clock, read like time.monotonic
    tracker = RunningTrials(slots=range(8), clock=clock)
    for i in range(1, 6):
        tracker.feed(TrialStarted(index=i, change="x", total_steps=40, config_path="c"))
    assert row_budget(24) == 2 and row_budget(40) == 8
    lines = shown_lines(tracker.rows(), row_budget(24))
    assert [line[0] for line in lines] == ["trial 1", "+4 more running: trials 2, 3, 4, 5"]
    assert len(shown_lines(tracker.rows(), row_budget(40))) == 5
