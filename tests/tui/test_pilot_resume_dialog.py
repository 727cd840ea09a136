"""The Monitor's Resume dialog (issue 40, item 9): its text fits where the screen has room
(100x50, 120x40), and where it has not (80x24) the keys a terminal sends over SSH and tmux scroll
it to its last line while the focus stays on the buttons; a line says how."""

from __future__ import annotations

import pytest
from textual.containers import VerticalScroll

from ltx_wizard.tui.dialogs.config_change import ConfigChangeDialog
from ltx_wizard.tui.screens.monitor import MonitorScreen
from tests.monitor_runs import make_run, sample_log
from tests.tui.helpers import make_app, settle, wait_until

STOPPED = sample_log("ok_single_gpu_cols250").split("INFO     🎥 Validation samples for step 50")[0]


def resumable_run(root):
    """A stopped run with checkpoints and a sample the resume moves aside: the longest text."""
    return make_run(
        root, STOPPED, steps=100, val_interval=20, checkpoints=((20, True), (40, True)), samples=(40,)
    )


async def open_resume(pilot) -> ConfigChangeDialog:
    """From the Monitor, r: until the dialog is laid out with its text region sized."""
    await wait_until(
        pilot, lambda: isinstance(pilot.app.screen, MonitorScreen) and pilot.app.screen.status is not None
    )
    await settle(pilot)
    await pilot.press("r")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ConfigChangeDialog))
    dialog = pilot.app.screen
    await wait_until(pilot, lambda: dialog.query_one("#diff").size.height > 0)
    await settle(pilot)
    return dialog


def _inside(app, widget) -> bool:
    region = widget.region
    return region.height > 0 and region.bottom <= app.size.height and region.right <= app.size.width


@pytest.mark.parametrize("size", [(100, 50), (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_resume_text_is_shown_whole_where_the_screen_has_room(tmp_path, size):
    app = make_app(run_dir=str(resumable_run(tmp_path)))
    async with app.run_test(size=size) as pilot:
        dialog = await open_resume(pilot)
        text = dialog.query_one("#diff", VerticalScroll)
        assert text.max_scroll_y == 0 and _inside(app, text)  # nothing cut
        assert not dialog.query_one("#scroll-hint").display
        for button in ("#yes", "#no"):
            assert _inside(app, dialog.query_one(button))


async def test_the_resume_text_scrolls_by_keyboard_at_80x24(tmp_path):
    app = make_app(run_dir=str(resumable_run(tmp_path)))
    async with app.run_test(size=(80, 24)) as pilot:
        dialog = await open_resume(pilot)
        text = dialog.query_one("#diff", VerticalScroll)
        assert text.max_scroll_y > 0 and _inside(app, text)
        hint = dialog.query_one("#scroll-hint")
        assert hint.display and _inside(app, hint) and "PgDn" in str(hint.render())
        await pilot.press("down")
        await wait_until(pilot, lambda: text.scroll_y == 1)
        await pilot.press("end")  # to the diff's last line
        await wait_until(pilot, lambda: text.scroll_y == text.max_scroll_y)
        await pilot.press("pageup")
        await wait_until(pilot, lambda: text.scroll_y < text.max_scroll_y)
        await pilot.press("home")
        await wait_until(pilot, lambda: text.scroll_y == 0)
        await pilot.press("pagedown")
        await wait_until(pilot, lambda: text.scroll_y > 1)
        assert dialog.focused is dialog.query_one("#no")  # still the safe answer on Enter
        for button in ("#yes", "#no"):
            assert _inside(app, dialog.query_one(button))
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, MonitorScreen))
