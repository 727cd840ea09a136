"""Long sessions stay quick: dialogs leave no widgets behind, what lives all run is kept out of
full garbage collections, and a key press gets the loop ahead of trial output
(tui/widgets/footer.py, tui/heap.py, core/proc/child.py favour_ui)."""

from __future__ import annotations

import gc

from textual.widgets._footer import FooterKey

from ltx_wizard.tui.dialogs.confirm import ConfirmDialog
from tests.tui.helpers import make_app, settle, to_held_trial, wait_until


def _live_footer_keys() -> int:
    gc.collect()
    return sum(isinstance(o, FooterKey) for o in gc.get_objects())


async def test_dialogs_opened_and_closed_leave_no_footer_keys_behind(demo_root, scripted):
    scripted.hold_after = 1  # the Autotune screen, a trial running, Cancel offered
    app = make_app(demo_root, engine_factory=scripted, at="summary")
    async with app.run_test(size=(120, 40)) as pilot:
        await to_held_trial(pilot, scripted)

        async def cancel_and_keep_going() -> None:
            await pilot.press("c")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
            await pilot.press("n")
            await wait_until(pilot, lambda: not isinstance(app.screen, ConfirmDialog))
            await pilot.pause()

        for _ in range(2):
            await cancel_and_keep_going()
        before = _live_footer_keys()
        for _ in range(10):
            await cancel_and_keep_going()
        # Textual's own Footer kept every rebuilt key alive: +8 per dialog here.
        assert _live_footer_keys() <= before
        scripted.instances[0].cancel()
        await wait_until(pilot, lambda: not app.state.autotune_running)


async def test_what_lives_all_run_is_frozen_out_of_collections_until_the_app_ends(demo_root, monkeypatch):
    from ltx_wizard.tui import heap

    monkeypatch.setattr(heap, "drawn", lambda app: True)  # as on a terminal: run_test is headless
    app = make_app(demo_root)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await wait_until(pilot, lambda: gc.get_freeze_count() > 0)  # after the probe's result
        assert gc.get_freeze_count() > 50_000  # modules, classes, schemas, widgets
    assert gc.get_freeze_count() == 0  # released: the next App in this process starts clean


async def test_a_headless_app_collects_nothing_at_its_phase_boundaries(demo_root):
    """No one sees a pause there, and a test process's heap holds every earlier test's objects."""
    app = make_app(demo_root)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await wait_until(pilot, lambda: app.state.assessment is not None)
        await pilot.pause()
        assert gc.get_freeze_count() == 0


def test_every_screen_uses_the_footer_that_drops_its_old_keys():
    from pathlib import Path

    tui = Path(__file__).resolve().parents[2] / "ltx_wizard" / "tui"
    direct = [
        str(p.relative_to(tui))
        for p in tui.rglob("*.py")
        if p.name != "footer.py"
        and "Footer"
        in p.read_text(encoding="utf-8").split("from textual.widgets import", 1)[-1].split("\n", 1)[0]
    ]
    assert direct == []
    users = [
        p.name for p in (tui / "screens").glob("*.py") if "yield Footer()" in p.read_text(encoding="utf-8")
    ]
    assert len(users) >= 6


async def test_a_key_press_gives_the_screen_priority_over_trial_output(demo_root):
    import time

    from ltx_wizard.core.proc import child as process

    app = make_app(demo_root)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        process.favour_ui(0)
        before = time.monotonic()
        await pilot.press("f1")  # the help dialog: a screen to build and paint
        assert process._ui_priority_until >= before + process.UI_PRIORITY_S
        await pilot.press("f1")
    process.favour_ui(0)
