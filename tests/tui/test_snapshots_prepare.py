"""Snapshots of the Prepare screen at 80x24 and 120x40: the form (the demo's raw clips), the
spot check dialog, and the screen once the dataset is prepared. Deterministic as the other
snapshots are (tests/tui/test_snapshots.py): this test's demo folder has SHOWN_ROOT's length and
is shown as it; the clock is frozen; PATH holds only this Python's folder."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
import textual._doc

from tests.tui.helpers import SHOWN_ROOT, make_app, until_shown, wait_until

SIZES = [(80, 24), (120, 40)]


def _at_end(log) -> bool:
    """The log at its last line; scrolled there again while lines still land under it (a scroll
    asked for before they did leaves it above them)."""
    if log.scroll_y >= log.max_scroll_y:
        return True
    log.scroll_end(animate=False)
    return False


async def _form(pilot):
    from ltx_wizard.tui.screens.prepare import PrepareScreen

    app = pilot.app
    await until_shown(pilot, "NVIDIA RTX A6000", when=lambda: type(app.screen).__name__ == "ProbeScreen")
    await pilot.press("ctrl+n")
    await until_shown(
        pilot,
        "Prepare your clips",
        "Captioner:",
        when=lambda: (
            isinstance(app.screen, PrepareScreen) and (app.demo.root / "raw-clips" / "quiet.mp4").is_file()
        ),
    )
    app.screen.query_one("#prep-split").value = True
    app.screen.query_one("#prep-holdout").value = "1"
    screen = app.screen
    await until_shown(
        pilot,
        when=lambda: screen.query_one("#prep-split").value and screen.query_one("#prep-holdout").value == "1",
    )


async def _spot_check(pilot):
    from ltx_wizard.tui.dialogs.confirm import ConfirmDialog
    from ltx_wizard.tui.dialogs.spot_check import SpotCheckDialog

    await _form(pilot)
    await pilot.press("ctrl+n")
    for topic in ("scenes", "rotated"):  # the scene split, then the upright copy
        await wait_until(
            pilot,
            lambda topic=topic: (
                isinstance(pilot.app.screen, ConfirmDialog) and topic in pilot.app.screen.question
            ),
        )
        await pilot.press("y")

    # drawn, the screen behind it waiting with its log at its end (the worker waits on the
    # answer: not idle)
    def asked() -> bool:
        if not isinstance(pilot.app.screen, SpotCheckDialog):
            return False
        status = pilot.app.screen_stack[-2].query_one("#prep-status")
        return str(status.render()).startswith("waiting for your answer")

    await until_shown(pilot, "Spot check: 3 captions", "Approve (a)", when=asked, idle=False)
    log = pilot.app.screen_stack[-2].query_one("#prep-log")
    log.scroll_end(animate=False)
    await until_shown(pilot, "Approve (a)", when=lambda: _at_end(log), idle=False)


async def _prepared(pilot):
    await _spot_check(pilot)
    await pilot.press("a")
    app = pilot.app
    await until_shown(
        pilot, "Continue (ctrl+n) takes it", when=lambda: getattr(app.screen, "result", None) is not None
    )
    log = app.screen.query_one("#prep-log")
    log.scroll_end(animate=False)
    await until_shown(pilot, "Continue (ctrl+n) takes it", when=lambda: _at_end(log))


SCENARIOS = {"prepare_form": _form, "prepare_spot_check": _spot_check, "prepare_done": _prepared}


@pytest.fixture
def demo_root(monkeypatch):
    parent = Path(SHOWN_ROOT).parent
    root = Path(tempfile.mkdtemp(prefix="ltxsnap", dir=parent))
    assert len(str(root)) == len(SHOWN_ROOT), root
    take = textual._doc.take_svg_screenshot

    def shown(*args, **kwargs) -> str:
        return take(*args, **kwargs).replace(str(root), SHOWN_ROOT)

    monkeypatch.setattr(textual._doc, "take_svg_screenshot", shown)
    monkeypatch.setenv("PATH", os.path.dirname(sys.executable))
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_prepare_screen(scenario, size, snap_compare, demo_root):
    app = make_app(demo_root, demo_data="raw")
    assert snap_compare(app, terminal_size=size, run_before=SCENARIOS[scenario])
