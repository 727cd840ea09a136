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

from tests.tui.helpers import SHOWN_ROOT, make_app, settle, wait_until

SIZES = [(80, 24), (120, 40)]


async def _form(pilot):
    from ltx_wizard.tui.screens.prepare import PrepareScreen

    await settle(pilot)
    await pilot.press("ctrl+n")
    await wait_until(
        pilot,
        lambda: (
            isinstance(pilot.app.screen, PrepareScreen)
            and (pilot.app.demo.root / "raw-clips" / "quiet.mp4").is_file()
        ),
    )
    await settle(pilot)
    pilot.app.screen.query_one("#prep-split").value = True
    pilot.app.screen.query_one("#prep-holdout").value = "1"
    await settle(pilot)


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
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, SpotCheckDialog))
    for _ in range(3):  # drawn (its worker waits on the answer: settle() would wait forever)
        await pilot.pause()
    pilot.app.screen_stack[-2].query_one("#prep-log").scroll_end(animate=False)  # behind it
    await pilot.pause()


async def _prepared(pilot):
    await _spot_check(pilot)
    await pilot.press("a")
    await wait_until(pilot, lambda: getattr(pilot.app.screen, "result", None) is not None)
    await settle(pilot)
    pilot.app.screen.query_one("#prep-log").scroll_end(animate=False)
    await pilot.pause()


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
