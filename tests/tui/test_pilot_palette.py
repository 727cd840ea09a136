"""The command palette (ctrl+p, issue 45): each wizard command run from it and its effect seen,
the commands that do not apply left out, Textual's theme picker kept in it."""

from __future__ import annotations

import sys
from contextlib import nullcontext

import pytest
from textual import events
from textual._xterm_parser import XTermParser
from textual.command import CommandInput, CommandList, CommandPalette

from ltx_wizard.tui.dialogs.config_change import ConfigChangeDialog
from ltx_wizard.tui.dialogs.confirm import ConfirmDialog
from ltx_wizard.tui.dialogs.file_view import FileViewDialog
from ltx_wizard.tui.dialogs.help import HelpDialog
from ltx_wizard.tui.screens.existing_run import ExistingRunScreen
from ltx_wizard.tui.screens.monitor import MonitorScreen
from ltx_wizard.tui.screens.results import ResultsScreen
from ltx_wizard.tui.screens.results.clip_access import scp_line
from tests.eval_runs import laid_out_run
from tests.monitor_runs import end, make_run, sample_log, start_live
from tests.tui.helpers import make_app, settle, wait_until

# Textual's own commands, beside the wizard's (the two providers answer in either order)
TEXTUALS = {"Theme", "Quit", "Keys", "Screenshot", "Maximize", "Minimize"}
STOPPED = sample_log("ok_single_gpu_cols250").split("INFO     🎥 Validation samples for step 50")[0]


@pytest.fixture(autouse=True)
def _plain_env(monkeypatch):
    for name in ("EDITOR", "VISUAL", "TMUX", "SSH_CONNECTION"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LTX_WIZARD_GRAPHICS", "halfblocks")


async def open_palette(pilot) -> CommandPalette:
    await pilot.press("ctrl+p")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, CommandPalette))
    return pilot.app.screen


def listed(palette: CommandPalette) -> list[str]:
    options = palette.query_one(CommandList).options
    return [str(option.hit.text) for option in options]


async def titles(pilot, query: str = "") -> list[str]:
    """The palette's hits for `query` (all of them for ""), then the palette closed again."""
    palette = await open_palette(pilot)
    if query:
        palette.query_one(CommandInput).value = query
        await wait_until(pilot, lambda: query in " ".join(listed(palette)) or not palette.is_current)
    else:
        await pilot.press("down")  # the discovery list
        await wait_until(pilot, lambda: "Theme" in listed(palette))
    found = listed(palette)
    await pilot.press("escape")
    await wait_until(pilot, lambda: not isinstance(pilot.app.screen, CommandPalette))
    return found


async def run_command(pilot, title: str) -> None:
    """Type the command's title into the palette and choose it."""
    palette = await open_palette(pilot)
    palette.query_one(CommandInput).value = title
    await wait_until(pilot, lambda: listed(palette)[:1] == [title])
    await pilot.press("enter")
    await wait_until(pilot, lambda: not palette.is_attached)
    await settle(pilot)


async def monitor_of(pilot) -> MonitorScreen:
    await wait_until(
        pilot, lambda: isinstance(pilot.app.screen, MonitorScreen) and pilot.app.screen.status is not None
    )
    await settle(pilot)
    return pilot.app.screen


def test_ctrl_p_arrives_as_one_byte_the_app_reads_as_ctrl_p():
    """Over SSH and tmux ctrl+p is the byte 0x10, passed through as typed (tmux's prefix is
    ctrl+b): Textual's own input parser reads it as the key the palette is bound to."""
    keys = [event for event in XTermParser().feed("\x10") if isinstance(event, events.Key)]
    assert [key.key for key in keys] == ["ctrl+p"]


async def test_on_the_first_screen_only_textuals_own_commands(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        found = await titles(pilot)
        assert "Theme" in found and "Keys" in found  # Textual's own stay
        assert not [t for t in found if t.startswith(("Go to", "Open", "Stop", "Resume", "Evaluate"))]
        # the footer leaves ctrl+p out: every screen's F1 page says it
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpDialog))
        assert "Ctrl+p opens the command palette" in app.screen.body


async def test_monitor_commands_run_the_screens_own_actions(tmp_path, monkeypatch):
    run = make_run(tmp_path, STOPPED, steps=100, checkpoints=((20, True), (40, True)))
    app = make_app(run_dir=str(run))
    async with app.run_test(size=(80, 24)) as pilot:
        monitor = await monitor_of(pilot)
        found = [t for t in await titles(pilot) if t not in TEXTUALS]
        assert found == [
            "Go to 3 Plan: Existing run",
            "Open plan.md",
            "Open config.yaml",
            "Resume training",
            "Evaluate",
            "Compare checkpoints",  # two kept, training over: the Monitor's own offer
        ]
        assert "Stop training" not in found  # stopped: the trainer is not live
        assert "Open run-summary.md" not in found  # written once the run finishes
        await run_command(pilot, "Resume training")
        assert isinstance(app.screen, ConfigChangeDialog)  # the Monitor's own resume question
        await pilot.press("n")
        await wait_until(pilot, lambda: app.screen is monitor)
        await run_command(pilot, "Open plan.md")  # no $EDITOR: read-only, here
        assert isinstance(app.screen, FileViewDialog)
        assert app.screen.query_one("#file-text").text == (run / "plan.md").read_text()
        assert app.screen.query_one("#file-text").read_only
        # over a dialog (it waits for its answer): Textual's own commands only
        assert not [t for t in await titles(pilot) if t.startswith(("Go to", "Open", "Resume"))]
        assert isinstance(app.screen, FileViewDialog)
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is monitor)
        # $EDITOR: started with the file, the App suspended meanwhile (a no-op under the pilot)
        seen = tmp_path / "editor-saw"
        editor = f"{sys.executable} -c \"import sys; open('{seen}', 'w').write(sys.argv[1])\""
        monkeypatch.setenv("EDITOR", editor)
        monkeypatch.setattr(app, "suspend", nullcontext)
        await run_command(pilot, "Open config.yaml")
        assert seen.read_text() == str(run / "config.yaml")
        assert app.screen is monitor
        await run_command(pilot, "Compare checkpoints")
        assert isinstance(app.screen, ConfirmDialog)  # the Monitor's own compare question
        await pilot.press("n")
        await wait_until(pilot, lambda: app.screen is monitor)
        await run_command(pilot, "Evaluate")
        assert isinstance(app.screen, ResultsScreen)
        await run_command(pilot, "Go to 3 Plan: Existing run")
        assert isinstance(app.screen, ExistingRunScreen)
        assert "Monitor training" in await titles(pilot, "Monitor")
        await run_command(pilot, "Monitor training")
        assert isinstance(app.screen, MonitorScreen)


async def test_stop_is_offered_while_the_trainer_is_live(tmp_path):
    run = make_run(tmp_path, STOPPED, steps=100, checkpoints=((20, True),))
    proc = start_live(run)
    try:
        app = make_app(run_dir=str(run))
        async with app.run_test(size=(80, 24)) as pilot:
            await monitor_of(pilot)
            await wait_until(pilot, lambda: app.screen.status.state == "live")
            assert "Resume training" not in await titles(pilot)
            await run_command(pilot, "Stop training")
            assert isinstance(app.screen, ConfirmDialog) and f"pid {proc.pid}" in app.screen.question
            await pilot.press("n")  # the safe answer: it keeps running
    finally:
        end(proc)


async def test_copy_the_scp_line_from_the_results_screen(tmp_path):
    run = laid_out_run(tmp_path)
    app = make_app(run_dir=str(run))
    async with app.run_test(size=(80, 24)) as pilot:
        await monitor_of(pilot)
        await run_command(pilot, "Evaluate")
        screen = app.screen
        await wait_until(pilot, lambda: screen._selected(True) is not None)
        await run_command(pilot, "Copy the scp line")
        renders = screen._renders(screen._shown)
        assert app.clipboard == scp_line([run / "outputs/eval" / r.file for r in renders])
        notes = " ".join(str(n.message) for n in app._notifications)
        assert "OSC 52" in notes and app.clipboard in notes  # said, and the line shown to select


async def test_theme_picker_switches_to_a_light_theme(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await run_command(pilot, "Theme")
        picker = app.screen
        assert isinstance(picker, CommandPalette)  # Textual's theme list
        picker.query_one(CommandInput).value = "textual-light"
        await wait_until(pilot, lambda: listed(picker)[:1] == ["textual-light"])
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.theme == "textual-light")


async def test_o_opens_the_same_run_files_as_the_palettes_open_commands(tmp_path):
    """Every palette command has a footer key too: the "Open ..." ones have o (dialogs/run_files.py)."""
    from ltx_wizard.tui.dialogs.run_files import RunFilesDialog

    run = make_run(tmp_path, STOPPED, steps=100, checkpoints=((20, True),))
    app = make_app(run_dir=str(run))
    async with app.run_test(size=(80, 24)) as pilot:
        monitor = await monitor_of(pilot)
        opens = [t.removeprefix("Open ") for t in await titles(pilot) if t.startswith("Open ")]
        assert opens == ["plan.md", "config.yaml"]  # no run-summary.md: the run has not finished
        await pilot.press("o")
        await wait_until(pilot, lambda: isinstance(app.screen, RunFilesDialog))
        assert [p.name for p in app.screen.paths] == opens
        await pilot.press("2")
        await wait_until(pilot, lambda: isinstance(app.screen, FileViewDialog))
        assert app.screen.query_one("#file-text").text == (run / "config.yaml").read_text()
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is monitor)
        await pilot.press("o")
        await wait_until(pilot, lambda: isinstance(app.screen, RunFilesDialog))
        await pilot.press("escape")  # closes, opens nothing
        await wait_until(pilot, lambda: app.screen is monitor)
