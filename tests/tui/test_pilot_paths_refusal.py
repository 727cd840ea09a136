"""Continue refused on the Paths screen at 80x24 (issue 40, item 9): the first field that keeps it
refused is focused and its ✗ line is on screen, hidden neither by the buttons docked below the
form nor by the toast that names the fields (toasts shown, as a terminal shows them)."""

from __future__ import annotations

from textual.widgets import Input, Select, Static

from ltx_wizard.demo.lookalike_checkout import make_checkout
from ltx_wizard.tui.screens.paths import PathsScreen
from tests.tui.helpers import make_app, settle, wait_until


def _uncovered(app, widget) -> bool:
    """Every cell of the widget is on screen with nothing drawn over it."""
    region = widget.region
    if not region or region.bottom > app.size.height:
        return False
    return all(
        app.screen.get_widget_at(x, y)[0] is widget
        for y in range(region.y, region.bottom)
        for x in range(region.x, region.right)
    )


async def _to_paths(pilot) -> None:
    await settle(pilot)
    await pilot.press("ctrl+n")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, PathsScreen))
    await settle(pilot)


async def _refused(pilot, entry: str) -> None:
    app = pilot.app
    await pilot.press("ctrl+n")
    await wait_until(
        pilot,
        lambda: bool(app.screen.query("Toast")) and app.screen.focused is app.screen.query_one(entry, Input),
    )
    await settle(pilot)
    assert isinstance(app.screen, PathsScreen)


async def test_a_bad_last_field_shows_its_cross_at_80x24(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await _to_paths(pilot)
        app.screen.query_one("#body").scroll_home(animate=False)  # as the screen opens: the top
        app.screen.query_one("#input-trainer_root", Input).value = "/nope"
        await settle(pilot)
        await _refused(pilot, "#input-trainer_root")
        status = app.screen.query_one("#field-trainer_root .field-status", Static)
        assert str(status.render()).startswith("✗ trainer checkout /nope does not exist")
        assert _uncovered(app, status)
        assert _uncovered(app, app.screen.query_one("#input-trainer_root"))


async def test_missing_validation_media_show_their_cross_at_80x24(demo_root, tmp_path):
    checkout = make_checkout(tmp_path / "LTX-2")  # placeholder media, as the real recipes ship
    app = make_app(demo_root, trainer_root=checkout)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await _to_paths(pilot)
        await wait_until(pilot, lambda: len(app.screen.offered_recipes) > 1)
        app.screen.query_one("#recipe", Select).value = "i2v_lora"
        await settle(pilot)
        app.screen.query_one("#body").scroll_home(animate=False)
        await _refused(pilot, "#validation-media")
        status = app.screen.query_one("#validation-status", Static)
        assert str(status.render()).startswith("✗ type a file for each")
        assert _uncovered(app, status)
        assert _uncovered(app, app.screen.query_one("#validation-media"))


async def test_digits_typed_in_the_files_box_are_text_and_down_reaches_the_numbered_list(demo_root, tmp_path):
    """Refused for want of validation media, the user is in the files box: what is typed there
    is text (digits of a path too); the numbered list of the dataset's media is one ↓ away, says
    so over itself, and there 1 and 2 add the files."""
    checkout = make_checkout(tmp_path / "LTX-2")
    app = make_app(demo_root, trainer_root=checkout)
    async with app.run_test(size=(80, 24)) as pilot:
        await _to_paths(pilot)
        await wait_until(pilot, lambda: len(app.screen.offered_recipes) > 1)
        app.screen.query_one("#recipe", Select).value = "i2v_lora"
        await settle(pilot)
        await _refused_quietly(pilot)
        box = app.screen.query_one("#validation-media", Input)
        await pilot.press("c", "l", "i", "p", "1", "2")
        await settle(pilot)
        assert box.value == "clip12"  # typed, not taken as list choices
        hint = app.screen.query_one("#validation-offers-hint", Static)
        assert "↓ to this list, then 1-9" in str(hint.render()) and _uncovered(app, hint)
        box.value = ""
        await pilot.press("down")
        offers = app.screen.query_one("#validation-offers")
        await wait_until(pilot, lambda: app.screen.focused is offers)
        await pilot.press("1", "2")
        await settle(pilot)
        media = demo_root / "media"
        assert box.value == f"{media / 'prefix_1.mp4'}; {media / 'prefix_2.mp4'}"


async def _refused_quietly(pilot) -> None:
    await pilot.press("ctrl+n")
    await wait_until(
        pilot, lambda: pilot.app.screen.focused is pilot.app.screen.query_one("#validation-media")
    )
    await settle(pilot)
