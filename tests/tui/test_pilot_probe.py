"""Probe screen, minimum gate and the unknown-memory question, driven like a user would."""

from __future__ import annotations

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.tui.dialogs.gate import GateDialog
from ltx_wizard.tui.dialogs.vram_ask import VramAskDialog
from ltx_wizard.tui.screens.prepare import PrepareScreen
from ltx_wizard.tui.screens.probe import ProbeScreen
from tests.tui.helpers import fake_probe, make_app, settle


def _text(app, selector: str) -> str:
    return str(app.screen.query_one(selector).render())


async def test_probe_shows_gpus_tier_and_notes():
    app = make_app(simulate="mixed")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ProbeScreen)
        table = app.screen.query_one("#gpus")
        assert table.row_count == 2
        assert "below the 32 GB minimum" in _text(app, "#tier")
        assert "mixed GPU models" in _text(app, "#notes")


async def test_gate_abort_exits_with_code_3():
    app = make_app(simulate="rtx4090")
    async with app.run_test() as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert isinstance(app.screen, GateDialog)
        assert "This GPU has 24GB VRAM" in _text(app, "#gate-message")
        await pilot.press("enter")  # Abort has the focus: the safe answer is the default
        await pilot.pause()
    assert app.return_code == 3


async def test_gate_try_anyway_goes_on_at_own_risk():
    app = make_app(simulate="rtx4090")
    async with app.run_test() as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await pilot.pause()
        await pilot.press("t")
        await settle(pilot)
        assert isinstance(app.screen, PrepareScreen)  # no data given yet: the clips come first
        assert app.state.accept_risk is True
        probe_screen = next(s for s in app.screen_stack if isinstance(s, ProbeScreen))
        assert "AT YOUR OWN RISK" in str(probe_screen.query_one("#tier").render())
    assert app.return_code in (None, 0)


async def test_unknown_memory_asks_for_gb_and_rejects_nonsense():
    app = make_app(probe_fn=fake_probe("NVIDIA GB10", None))
    async with app.run_test() as pilot:
        await settle(pilot)
        assert "does not report its memory" in _text(app, "#notes")
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert isinstance(app.screen, VramAskDialog)
        await pilot.press("0", "enter")
        await pilot.pause()
        assert isinstance(app.screen, VramAskDialog)
        assert "4096" in _text(app, "#gb-error")
        await pilot.press("backspace", "1", "2", "8", "enter")
        await settle(pilot)
        assert isinstance(app.screen, PrepareScreen)  # no data given yet: the clips come first
        assert app.state.assessment.per_gpu_vram_gb == 128
        assert app.state.assessment.tier.display_name == "80GB+ tier"


async def test_unknown_memory_escape_stays_on_probe():
    app = make_app(probe_fn=fake_probe("NVIDIA GB10", None))
    async with app.run_test() as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ProbeScreen)
        assert app.state.assessment.per_gpu_vram_gb is None


async def test_probe_failure_is_one_line_and_reprobe_recovers():
    calls = []

    def flaky():
        calls.append(1)
        if len(calls) == 1:
            raise WizardError("NVML: driver not loaded; run nvidia-smi to check")
        return fake_probe("NVIDIA H100 80GB HBM3", 81559)()

    app = make_app(probe_fn=flaky)
    async with app.run_test() as pilot:
        await settle(pilot)
        assert "driver not loaded" in _text(app, "#probe-status")
        assert app.screen.query_one("#continue").disabled
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert "80GB+ tier" in _text(app, "#tier")
        assert not app.screen.query_one("#continue").disabled


async def test_ctrl_q_quits_with_code_0():
    app = make_app(simulate="h100")
    async with app.run_test() as pilot:
        await settle(pilot)
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert app.return_code == 0


async def test_f1_toggles_the_screen_help():
    # F1 used to toggle Textual's key list; it now opens this screen's help (k there: key list).
    app = make_app(simulate="h100")
    async with app.run_test() as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await pilot.pause()
        assert type(app.screen).__name__ == "HelpDialog"
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, ProbeScreen)
