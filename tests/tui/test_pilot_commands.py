"""Issue 45: the `@` dialog (what the wizard ran for this run) and the read-only Monitor of a run
another wizard holds (the second wizard's lock held by a real process)."""

from __future__ import annotations

import sys

from rich.text import Text
from textual.widgets import Button, DataTable

from ltx_wizard.core.io.commands_file import read_commands, record_into
from ltx_wizard.core.proc.spawn import spawn
from tests.ran_children import let_go, ran
from ltx_wizard.tui.dialogs.commands import CommandsDialog
from ltx_wizard.tui.dialogs.config_change import ConfigChangeDialog
from ltx_wizard.tui.dialogs.confirm import ConfirmDialog
from ltx_wizard.tui.screens.monitor import MonitorScreen
from tests.lock_holder import lock_held_elsewhere
from tests.monitor_runs import make_run, sample_log
from tests.tui.helpers import make_app, settle, wait_until


def _toasts(app) -> list[str]:
    """Every toast the app shows from now on (kept: a toast on screen expires on a slow machine)."""
    said: list[str] = []
    notify = app.notify

    def keep(message, **kwargs):
        said.append(str(message))
        notify(message, **kwargs)

    app.notify = keep
    return said


def _ran(run) -> None:
    """Three commands the wizard ran for `run`: a success, a failure, a killed one."""
    undo = record_into(lambda: run)
    try:
        ran([sys.executable, "-c", "pass"], cwd=run)
        ran(["sh", "-c", "exit 2"], cwd=run)
        child = spawn(["sleep", "30"], cwd=run)
        child.popen.kill()
        child.popen.wait()
        let_go(child)
    finally:
        undo()


async def test_at_lists_the_runs_commands_newest_last_coloured_and_copies_one(tmp_path):
    run = make_run(tmp_path, sample_log("ok_single_gpu_cols250"), checkpoints=((50, True),))
    _ran(run)
    commands = read_commands(run)
    app = make_app(run_dir=str(run))
    said = _toasts(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, MonitorScreen))
        await pilot.press("at")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, CommandsDialog) and app.screen.query_one(DataTable).row_count,
        )
        dialog = app.screen
        table = dialog.query_one(DataTable)
        assert table.row_count == 3 and table.cursor_row == 2  # newest last, selected
        outcomes = [table.get_row_at(i)[1] for i in range(3)]
        assert [o.plain for o in outcomes] == ["exit 0", "exit 2", "SIGKILL"]
        assert all(isinstance(o, Text) for o in outcomes)
        assert [str(o.style) for o in outcomes] == ["green", "bold red", "bold red"]
        assert commands[2].line in str(dialog.query_one("#commands-line").render())
        await pilot.press("up", "c")
        await settle(pilot)
        assert app.clipboard == commands[1].line
        assert any("Sent the command line to the clipboard" in m for m in said)
        await pilot.press("enter")  # Enter copies too
        await settle(pilot)
        assert app.clipboard == commands[1].line
        await pilot.press("at")  # not a second dialog over the first
        await settle(pilot)
        assert len([s for s in app.screen_stack if isinstance(s, CommandsDialog)]) == 1
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, MonitorScreen))


async def test_at_says_when_nothing_ran_yet(tmp_path):
    run = make_run(tmp_path, sample_log("ok_single_gpu_cols250"))
    app = make_app(run_dir=str(run))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, MonitorScreen))
        await app.run_action("show_commands")  # the palette's way in
        await wait_until(pilot, lambda: isinstance(app.screen, CommandsDialog))
        await settle(pilot)
        assert "No command recorded" in str(app.screen.query_one("#commands-line").render())


async def test_a_second_wizard_on_a_held_run_is_read_only_and_names_the_holder(tmp_path):
    run = make_run(tmp_path, sample_log("ok_single_gpu_cols250"), checkpoints=((25, True), (50, True)))
    config = run / "config.yaml"
    config.write_text(config.read_text().replace("steps: 50", "steps: 80"))  # resumable
    with lock_held_elsewhere(run) as first:
        app = make_app(run_dir=str(run), open_monitor=True)
        said = _toasts(app)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until(
                pilot, lambda: isinstance(app.screen, MonitorScreen) and app.screen.status is not None
            )
            screen = app.screen
            banner = str(screen.query_one("#monitor-readonly").render())
            assert f"another ltx-wizard holds this run (pid {first.pid}, started " in banner
            assert screen.status.resumable  # what a holder would be offered
            for name in ("stop", "resume", "fix", "compare"):  # compare: two kept, training over
                assert not screen.query_one(f"#{name}", Button).display
            assert screen.query_one("#copy", Button).display  # showing and copying stay
            assert not screen.check_action("resume", ()) and not screen.check_action("stop", ())
            await pilot.press("r", "s", "f", "c")
            await settle(pilot)
            assert app.screen is screen
            screen.action_compare()  # forced: refused as well, nothing asked
            await settle(pilot)
            assert app.screen is screen
            screen.action_resume()  # forced, as a palette or a script would: refused, said
            await settle(pilot)
            assert not isinstance(app.screen, (ConfigChangeDialog, ConfirmDialog))
            assert any(m.startswith("Read-only: another ltx-wizard holds this run") for m in said)
    # the first wizard gone: a new Monitor holds the run and offers Resume again
    app = make_app(run_dir=str(run), open_monitor=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(
            pilot, lambda: isinstance(app.screen, MonitorScreen) and app.screen.status is not None
        )
        assert app.screen.query_one("#resume", Button).display
        assert app.screen.query_one("#compare", Button).display
        await pilot.press("r")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfigChangeDialog))


async def test_the_wizard_records_what_it_starts_in_the_run_it_shows_and_stops_when_it_leaves(tmp_path):
    run = make_run(tmp_path, sample_log("ok_single_gpu_cols250"))
    app = make_app(run_dir=str(run))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, MonitorScreen))
        ran(["sh", "-c", "exit 3"])  # as a phase of this wizard starts a child
    ran(["true"])  # the wizard has left: nothing records
    assert [(c.start.argv, c.outcome, c.start.run) for c in read_commands(run)] == [
        (("sh", "-c", "exit 3"), "exit 3", str(run.absolute()))
    ]
