"""Autotune screen: the real engine on the simulated trainer (ok, OOM, cancel), and output floods."""

from __future__ import annotations

import re

from ltx_wizard.tui.dialogs.confirm import ConfirmDialog
from ltx_wizard.tui.screens.autotune import LOG_LINES, AutotuneScreen
from ltx_wizard.tui.screens.done import DoneScreen
from tests.tui.helpers import (
    FAST_SIM,
    RUN_NAME,
    make_app,
    settle,
    to_held_trial,
    to_summary,
    wait_until,
)


def _cells(app) -> list[list[str]]:
    table = app.screen.query_one("#trials")
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


def _status(app) -> str:
    return str(app.screen.query_one("#at-status").render())


async def test_autotune_ok_fills_the_table_and_patches_the_winner(demo_root):
    app = make_app(demo_root, **FAST_SIM, at="summary")
    async with app.run_test(size=(120, 40)) as pilot:
        await to_summary(pilot)
        await pilot.press("a")
        await settle(pilot)
        await wait_until(pilot, lambda: not app.state.autotune_running)
        await settle(pilot)
        summary = app.state.summary
        assert summary is not None and summary.winner is not None, app.state.autotune_error
        rows = _cells(app)
        confirms = ["✔"] * len(summary.confirmations)
        assert [r[0] for r in rows] == [str(t.index) for t in summary.trials] + confirms
        assert confirms and "confirm trial" in rows[-1][1] and rows[-1][2] == "ok"  # its own row
        assert rows[0][1] == "baseline" and rows[0][2] == "ok"
        assert "Winner: trial" in _status(app)
        run = demo_root / "ltx-trainings" / RUN_NAME
        assert (run / "autotune.log").is_file()
        assert app.screen.query_one("#log").line_count > 0
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert isinstance(app.screen, DoneScreen)
        assert re.search(r"winner trial \d", str(app.screen.query_one("#winner").render()))


async def test_autotune_oom_is_shown_and_reverted(demo_root, scripted):
    # Scripted: whether the simulated 32 GB card runs out of memory or is skipped by the headroom
    # check depends on sampled VRAM; the screen's job is to show the outcome either way.
    scripted.script = "oom"
    app = make_app(demo_root, engine_factory=scripted, at="summary")
    async with app.run_test(size=(120, 40)) as pilot:
        await to_summary(pilot)
        await pilot.press("a")
        await wait_until(pilot, lambda: not app.state.autotune_running)
        await settle(pilot)
        rows = _cells(app)
        assert rows[-1][2] == "OOM" and rows[-1][5] == "✗"  # ran, not kept
        assert "Winner: trial 2" in _status(app)
        assert "out-of-memory" in _status(app)


async def test_cancel_asks_then_stops_the_running_trial(demo_root):
    hang = {"sim_env": {"LTX_WIZARD_SIM_SPEED": "500", "LTX_WIZARD_SIM_FAULT": "hang"}}
    app = make_app(demo_root, **hang, at="summary")
    async with app.run_test(size=(120, 40)) as pilot:
        await to_summary(pilot)
        await pilot.press("a")
        await wait_until(pilot, lambda: "step 20/40" in str(app.screen.query_one("#trial-label").render()))
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("n")  # keep going: nothing stops
        await pilot.pause()
        assert app.state.autotune_running
        await pilot.press("c")
        await pilot.pause()
        # nothing kept yet: the dialog says config.yaml stays as planned, and so it does
        assert "config.yaml stays as planned" in str(app.screen.query_one(".dialog-body").render())
        config = demo_root / "ltx-trainings" / RUN_NAME / "config.yaml"
        planned = config.read_text()
        await pilot.press("y")
        await wait_until(pilot, lambda: not app.state.autotune_running)
        await settle(pilot)
        assert isinstance(app.screen, AutotuneScreen)
        assert "cancelled" in [row[2] for row in _cells(app)]
        assert config.read_text() == planned
        assert not app.screen.query_one("#continue").disabled


async def test_a_flood_of_output_stays_bounded_and_keys_still_work(demo_root, scripted):
    scripted.script = "flood"
    app = make_app(demo_root, engine_factory=scripted, at="summary")
    async with app.run_test(size=(120, 40)) as pilot:
        await to_summary(pilot)
        await pilot.press("a")
        await wait_until(pilot, lambda: not app.state.autotune_running)
        await settle(pilot)
        log = app.screen.query_one("#log")
        assert 0 < log.line_count <= LOG_LINES
        assert len(app.autotune.log_buffer) == 0
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert isinstance(app.screen, DoneScreen)


async def test_a_flood_of_step_lines_is_coalesced_into_a_few_progress_messages(demo_root, scripted):
    from ltx_wizard.tui import messages

    scripted.script = "step_flood"
    app = make_app(demo_root, engine_factory=scripted, at="summary")
    posted = []
    controller = app.autotune
    post = controller.post

    def counting(message):  # every message the screen is sent, by its type
        if isinstance(message, messages.AutotuneMessage):
            posted.append(type(message.event).__name__)
        return post(message)

    controller.post = counting
    async with app.run_test(size=(120, 40)) as pilot:
        await to_summary(pilot)
        await pilot.press("a")
        await wait_until(pilot, lambda: not app.state.autotune_running)
        await settle(pilot)
        # 60,000 progress events from three trials; the screen needs only the latest of each run.
        assert posted.count("TrialProgress") < 100, posted.count("TrialProgress")
        assert posted.count("TrialFinished") == 3
        label = str(app.screen.query_one("#trial-label").render())
        assert "step 40/50" in label  # the last reading, not a stale one


async def test_progress_messages_still_queued_give_way_to_the_newest_of_their_trial(demo_root, scripted):
    # Textual's can_replace: of a burst posted before the screen reads its queue, each trial's
    # last reading is handled and the older ones are dropped; another trial's is not.
    from ltx_wizard.core.autotune import events
    from ltx_wizard.tui import messages

    handled: list[tuple[int, int]] = []

    def hook(message):
        if isinstance(message, messages.TrialProgress):
            handled.append((message.event.index, message.event.step))

    scripted.hold_after = 1
    app = make_app(demo_root, engine_factory=scripted, at="summary")
    async with app.run_test(size=(120, 40), message_hook=hook) as pilot:
        await to_held_trial(pilot, scripted)
        await pilot.pause()
        handled.clear()
        screen = app.screen
        assert isinstance(screen, AutotuneScreen)
        for step in range(1, 41):  # no await between them: all wait in the screen's queue
            screen.post_message(messages.TrialProgress(events.TrialProgress(index=1, step=step, total=50)))
        screen.post_message(messages.TrialProgress(events.TrialProgress(index=2, step=7, total=50)))
        await pilot.pause()
        assert (1, 40) in handled and handled[-1] == (2, 7)
        assert len(handled) < 10, handled
        assert "Trial 2  step 7/50" in str(screen.query_one("#trial-label").render())
        scripted.instances[0].cancel()
        await wait_until(pilot, lambda: not app.state.autotune_running)


async def test_popping_the_screen_does_not_kill_autotune(demo_root, scripted):
    scripted.hold_after = 2
    app = make_app(demo_root, engine_factory=scripted, at="summary")
    async with app.run_test(size=(120, 40)) as pilot:
        await to_held_trial(pilot, scripted)
        app.pop_screen()
        await pilot.pause()
        assert app.state.autotune_running  # the worker belongs to the App
        scripted.instances[0].cancel()
        await wait_until(pilot, lambda: not app.state.autotune_running)
        assert [t.outcome for t in app.state.summary.trials] == ["ok", "cancelled"]


async def test_quit_during_autotune_asks_first(demo_root, scripted):
    scripted.hold_after = 1
    app = make_app(demo_root, engine_factory=scripted, at="summary")
    async with app.run_test(size=(120, 40)) as pilot:
        await to_held_trial(pilot, scripted)
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("n")
        await pilot.pause()
        assert app.state.autotune_running and app.is_running
        await pilot.press("ctrl+q")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
    assert scripted.instances[0].cancelled.is_set()
    assert app.return_code == 0


async def test_a_trial_that_ends_shows_its_whole_peak_while_the_next_one_runs(demo_root, scripted):
    # Its row was added with "—" while it ran; "38.2 GiB" must widen the column, not be cut to "38.2".
    import html

    scripted.hold_after = 2
    app = make_app(demo_root, engine_factory=scripted, at="summary")
    async with app.run_test(size=(120, 40)) as pilot:
        await to_held_trial(pilot, scripted)
        await wait_until(pilot, lambda: _cells(app)[0][4] == "38.2 GiB")
        await pilot.pause()
        shown = html.unescape(app.export_screenshot()).replace("\xa0", " ")
        assert "38.2 GiB" in shown and "2.40 s" in shown
        scripted.instances[0].cancel()
        await wait_until(pilot, lambda: not app.state.autotune_running)


async def test_the_table_says_why_each_trial_was_kept_or_rejected_at_80_and_120(demo_root):
    from ltx_wizard.core.autotune.outputs import presenter
    from ltx_wizard.tui.screens.autotune import column_widths, fit

    for size in ((80, 24), (120, 40)):
        root = demo_root / f"{size[0]}"
        root.mkdir()
        app = make_app(root, **FAST_SIM, at="summary")
        async with app.run_test(size=size) as pilot:
            await to_summary(pilot)
            await pilot.press("a")
            await wait_until(pilot, lambda: not pilot.app.state.autotune_running)
            await settle(pilot)
            table = app.screen.query_one("#trials")
            labels = [str(c.label) for c in table.columns.values()]
            assert labels[-1] == "Reason"
            assert sum(c.get_render_width(table) for c in table.columns.values()) <= size[0]
            width = column_widths(size[0])["Reason"]
            rows = _cells(app)
            for trial, row in zip(app.state.summary.trials, rows):
                assert row[6] == fit(presenter.reason_cell(trial), width) and row[6]
                if trial.ran:  # kept or not, a trial that ran says which
                    assert row[5] in ("✓", "✗")
                if trial.kept and trial.index > 1:  # a kept lever says what it gained
                    assert "faster" in row[6] or row[6].startswith("fits"), row
