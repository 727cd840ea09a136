"""Keys over dialogs and panels (issue 40, item 9): F1 on an open dialog opens that dialog's own
help, and Escape on the All keys panel closes the panel without stepping back a screen."""

from __future__ import annotations

from pathlib import Path

import pytest

from ltx_wizard.core.compare.compare_view import read_compared
from ltx_wizard.tui.dialogs.checkpoint_pick import CheckpointPickDialog
from ltx_wizard.tui.dialogs.commands import CommandsDialog
from ltx_wizard.tui.dialogs.config_change import ConfigChangeDialog
from ltx_wizard.tui.dialogs.confirm import ConfirmDialog
from ltx_wizard.tui.dialogs.download import DownloadDialog
from ltx_wizard.tui.dialogs.file_view import FileViewDialog
from ltx_wizard.tui.dialogs.gate import GateDialog
from ltx_wizard.tui.dialogs.grid_cell import GridCellDialog
from ltx_wizard.tui.dialogs.help import HelpDialog, help_for_class
from ltx_wizard.tui.dialogs.holdout_ask import HoldoutDialog
from ltx_wizard.tui.dialogs.pick import PickDialog
from ltx_wizard.tui.dialogs.run_files import RunFilesDialog
from ltx_wizard.tui.dialogs.spot_check import SpotCheckDialog
from ltx_wizard.tui.dialogs.vram_ask import VramAskDialog
from ltx_wizard.tui import dialogs
from ltx_wizard.tui.screens.paths import PathsScreen
from tests.tui.helpers import make_app, settle, wait_until
from tests.tui.test_pilot_newcomer import _screen_classes


class _Found:
    path = Path("/models/ltx-2.safetensors")
    usable = True
    summary = "19.0 B params"
    reason = "found in /models"


# One way to open each dialog that has its own F1 help, with the arguments a screen gives it.
OLD_RUN = Path(__file__).resolve().parents[1] / "core" / "io" / "old_run"  # a compare.json and pick.json

OPENERS = {
    "CheckpointPickDialog": lambda: CheckpointPickDialog(read_compared(OLD_RUN)),  # k: the compared ones
    "CommandsDialog": lambda: CommandsDialog(Path("/no-such-run")),  # @: the run's commands (none here)
    "ConfigChangeDialog": lambda: ConfigChangeDialog("Change", "One setting changes.", "- a: 1\n+ a: 2"),
    "ConfirmDialog": lambda: ConfirmDialog("Go on?"),
    "DownloadDialog": lambda: DownloadDialog(),
    "FileViewDialog": lambda: FileViewDialog(Path("/run/plan.md"), "# Plan\n"),
    "GateDialog": lambda: GateDialog("This GPU has 24 GB."),
    "GridCellDialog": lambda: GridCellDialog("step 100, prompt 1", None, "not rendered", "17 frames"),
    "HoldoutDialog": lambda: HoldoutDialog("Hold out 1 clip?"),
    "PickDialog": lambda: PickDialog("Found on disk: checkpoint", [_Found()]),
    "RunFilesDialog": lambda: RunFilesDialog([Path("/run/plan.md"), Path("/run/config.yaml")]),  # o
    "SpotCheckDialog": lambda: SpotCheckDialog([("clip.mp4", "a cat in the rain")]),
    "VramAskDialog": lambda: VramAskDialog("NVIDIA GB10"),
}


def test_every_dialog_with_its_own_help_is_opened_here():
    own = {name for name, cls in _screen_classes(dialogs).items() if "F1_HELP" in vars(cls)}
    assert own == set(OPENERS)


@pytest.mark.parametrize("name", sorted(OPENERS))
async def test_f1_on_an_open_dialog_shows_that_dialogs_help(demo_root, name):
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        dialog = OPENERS[name]()
        app.push_screen(dialog)
        await wait_until(pilot, lambda: app.screen is dialog)
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpDialog))
        assert app.screen.screen_name == name
        assert (app.screen.title_text, app.screen.body) == help_for_class(type(dialog))
        await pilot.press("escape")  # the help closes; the dialog is still there, unanswered
        await wait_until(pilot, lambda: not isinstance(app.screen, HelpDialog))
        assert app.screen is dialog


async def test_escape_on_the_all_keys_panel_closes_only_the_panel(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: isinstance(app.screen, PathsScreen))
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpDialog))
        await pilot.press("k")  # All keys: Textual's panel over the Paths screen
        await wait_until(pilot, lambda: isinstance(app.screen, PathsScreen) and app.screen.query("HelpPanel"))
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.screen.query("HelpPanel"))
        await settle(pilot)
        assert isinstance(app.screen, PathsScreen)  # not stepped back to the Probe screen
        await pilot.press("escape")  # with the panel closed, Escape steps back as before
        await wait_until(pilot, lambda: type(app.screen).__name__ == "ProbeScreen")
