"""80x24 by keyboard alone: every field of the Paths screen is reached with Tab and is on screen
when it has the focus; Enter on a select opens it (it does not press Continue); every dialog's
buttons are on screen."""

from __future__ import annotations

from textual.widgets import Button, Select

from ltx_wizard.tui.screens.paths import PathsScreen
from tests.tui.helpers import make_app, settle, wait_until


def _visible(app, widget) -> bool:
    region = widget.region
    screen = app.screen.region
    return (
        region.height > 0
        and screen.contains_region(region)
        or (region.height > 0 and region.y >= screen.y and region.bottom <= screen.bottom)
    )


async def _paths(pilot):
    await settle(pilot)
    await pilot.press("ctrl+n")
    await wait_until(
        pilot, lambda: isinstance(pilot.app.screen, PathsScreen) and pilot.app.screen._checked is not None
    )
    await settle(pilot)


async def test_every_paths_field_is_reached_by_tab_and_shown_at_80x24(demo_root):
    app = make_app(demo_root, demo_data="clips")
    async with app.run_test(size=(80, 24)) as pilot:
        await _paths(pilot)
        screen = app.screen
        wanted = {
            w.id
            for w in screen.query("Input, Select, Checkbox, TextArea")
            if w.display and w.id and all(a.display for a in w.ancestors_with_self if hasattr(a, "display"))
        }
        reached: list[str] = []
        for _ in range(60):  # once round the focus chain: until it comes back to where it began
            await pilot.press("tab")
            await pilot.pause()
            focused = app.focused
            if focused is None or not focused.id:
                continue
            if reached and focused.id == reached[0]:
                break
            reached.append(focused.id)
            assert _visible(app, focused), f"{focused.id} has the focus but is off screen"
        else:
            raise AssertionError(f"tab never came back round: {reached}")
        for name in ("input-checkpoint", "input-data_root", "buckets", "trigger", "mode", "recipe"):
            assert name in wanted and name in reached, name


async def test_enter_on_a_select_opens_it_and_never_continues(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await _paths(pilot)
        for name in ("#mode", "#recipe"):
            select = app.screen.query_one(name, Select)
            select.focus()
            await pilot.pause()
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, PathsScreen) and select.expanded
            await pilot.press("escape")  # closes the list, stays on the screen
            await pilot.pause()
            assert isinstance(app.screen, PathsScreen) and not select.expanded


async def test_the_paths_buttons_are_on_screen_at_80x24(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await _paths(pilot)
        for button in app.screen.query(Button):
            assert _visible(app, button), button.id


async def test_a_long_dialog_keeps_its_buttons_on_screen_at_80x24(demo_root):
    # the Monitor's Resume and fix dialogs show a sentence and a diff: at 80x24 their buttons
    # once fell below the screen; the text now scrolls inside the dialog
    from ltx_wizard.tui.dialogs.config_change import ConfigChangeDialog
    from ltx_wizard.tui.dialogs.confirm import ConfirmDialog

    sentence = " ".join(["The latest checkpoint and its training state are loaded."] * 8)
    diff = "\n".join(f"-  key_{n}: old\n+  key_{n}: new" for n in range(30))
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        for dialog in (
            ConfigChangeDialog("Resume training", sentence, diff),
            ConfirmDialog(sentence * 3, yes="Overwrite", no="Keep them"),
        ):
            app.push_screen(dialog)
            await pilot.pause()
            await pilot.pause()
            for button in dialog.query(Button):
                assert _visible(app, button), f"{type(dialog).__name__}: {button.id}"
            await pilot.press("n")
            await pilot.pause()
