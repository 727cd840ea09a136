"""Bursts of keys through every dialog and every phase change: no crash, no screen popped twice.

A burst is several key events queued before the first is handled (a held key, a paste, key
mashing over SSH): posted here all at once, then the app runs until idle. Before round three,
four Enters in the F2 picker popped the picker, the Paths and the Probe screens and then raised
ScreenStackError; mashing into the Done screen gave NoMatches '#files'.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from textual import events

from ltx_wizard.tui.dialogs.confirm import ConfirmDialog
from ltx_wizard.tui.dialogs.gate import GateDialog
from ltx_wizard.tui.dialogs.help import HelpDialog
from ltx_wizard.tui.dialogs.pick import PickDialog
from ltx_wizard.tui.dialogs.vram_ask import VramAskDialog
from ltx_wizard.tui.screens.done import DoneScreen
from ltx_wizard.tui.screens.paths import PathsScreen
from ltx_wizard.tui.screens.probe import ProbeScreen
from ltx_wizard.tui.screens.summary import SummaryScreen
from tests.tui.helpers import make_app, settle, to_summary

CHARS = {"enter": "\r", "escape": "\x1b", "ctrl+n": "\x0e", "f2": None}


@pytest.fixture
def demo_root(tmp_path: Path) -> Path:
    root = tmp_path / "demo"
    root.mkdir()
    return root


def burst(app, *keys: str) -> None:
    """Queue every key before any is handled."""
    for key in keys:
        app.post_message(events.Key(key, CHARS.get(key, key if len(key) == 1 else None)))


def stack_types(app) -> list[str]:
    return [type(s).__name__ for s in app.screen_stack]


def no_screen_twice(app) -> None:
    names = stack_types(app)
    assert len(names) == len(set(names)), names


async def test_four_enters_in_the_picker_pick_once(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert isinstance(app.screen, PathsScreen)
        field = app.screen.query_one("#field-text_encoder")
        expected = field.value
        field.set_value("")
        await pilot.click("#input-text_encoder")
        await pilot.press("f2")
        await pilot.pause()
        assert isinstance(app.screen, PickDialog)
        burst(app, "enter", "enter", "enter", "enter")
        await settle(pilot)
        assert isinstance(app.screen, PathsScreen), stack_types(app)  # was: ScreenStackError
        assert app.screen.query_one("#field-text_encoder").value == expected
        assert app.is_running


def _candidate(path: str):
    return SimpleNamespace(path=Path(path), usable=True, summary="ok", reason="found")


DIALOGS = [
    ("confirm-yes", lambda: ConfirmDialog("Go?"), ("y", "y", "y", "enter"), True),
    ("confirm-no", lambda: ConfirmDialog("Go?"), ("escape", "n", "escape"), False),
    ("gate-try", lambda: GateDialog("below 32 GB"), ("t", "t", "t"), True),
    ("gate-abort", lambda: GateDialog("below 32 GB"), ("a", "escape", "a"), False),
    ("help-close", lambda: HelpDialog(ProbeScreen), ("escape", "escape", "q", "f1"), None),
    ("help-keys", lambda: HelpDialog(ProbeScreen), ("k", "k", "k"), None),
    (
        "pick",
        lambda: PickDialog("Found", [_candidate("/m/a"), _candidate("/m/b")]),
        ("enter", "enter", "enter", "enter"),
        "/m/a",
    ),
    ("vram", lambda: VramAskDialog("GB10"), ("4", "8", "enter", "enter", "enter"), 48),
]


@pytest.mark.parametrize(("make", "keys", "answer"), [d[1:] for d in DIALOGS], ids=[d[0] for d in DIALOGS])
async def test_every_dialog_answers_once_under_a_burst(demo_root, make, keys, answer):
    app = make_app(demo_root)
    answers = []
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ProbeScreen)
        below = len(app.screen_stack)
        # A Static focused below: the burst's leftover keys then change nothing there.
        app.screen.set_focus(None)
        app.push_screen(make(), answers.append)
        await pilot.pause()
        burst(app, *keys)
        await settle(pilot)
        assert answers == [answer]
        assert len(app.screen_stack) >= below, stack_types(app)  # nothing below it was popped
        assert app.is_running
        no_screen_twice(app)


async def test_continue_mashed_on_the_probe_opens_paths_once(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        app.screen.query_one("#continue").focus()
        burst(app, "enter", "enter", "enter", "ctrl+n")
        await settle(pilot)
        assert isinstance(app.screen, PathsScreen), stack_types(app)
        no_screen_twice(app)


async def test_approve_pressed_three_times_writes_once_and_asks_nothing(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_summary(pilot)
        await settle(pilot)
        app.screen.query_one("#skip").focus()
        burst(app, "enter", "enter", "enter")
        await settle(pilot)
        # before: the late presses found plan.md written and asked to overwrite it over Done
        assert isinstance(app.screen, DoneScreen), stack_types(app)
        no_screen_twice(app)


@pytest.mark.parametrize(
    "keys",
    [
        ("s", "escape"),
        ("s", "escape", "escape", "escape", "escape"),
        ("s", "s", "c", "t", "escape", "escape"),
    ],
    ids=["into-done-and-out", "escape-all-the-way", "mash"],
)
async def test_mashing_into_done_and_back_never_crashes(demo_root, keys):
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_summary(pilot)
        await settle(pilot)
        burst(app, *keys)
        await settle(pilot, rounds=3)
        assert app.is_running
        no_screen_twice(app)
        assert isinstance(app.screen_stack[1], ProbeScreen)  # the bottom phase is never popped
    assert app.return_code in (None, 0)


async def test_done_left_before_it_mounted_does_not_crash(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_summary(pilot)
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, DoneScreen)
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, SummaryScreen)
        # The mash at its tightest: Done pushed and popped again before its Mount is handled.
        app.nav.open_done()
        app.screen.action_back()  # what Escape runs
        await settle(pilot)
        assert app.is_running and isinstance(app.screen, (SummaryScreen, DoneScreen))
        no_screen_twice(app)
