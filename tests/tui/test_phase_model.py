"""Every screen's step bar, breadcrumbs and F1 title come from the one phase model
(core/base/phases.py), and navigation names a screen for each of its phases (issue 42: the bar
named 6 steps for 12 screens, and Prepare, Intent and Paths all said "Step 2 · Paths")."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

import ltx_wizard.tui.screens as screens_pkg
from ltx_wizard.core.base import phases
from ltx_wizard.demo.sim.stand_in import AUDIO_DECODE_ENV
from ltx_wizard.tui.dialogs.help import HelpDialog, help_for_class
from ltx_wizard.tui.navigation import SCREENS, screen_class
from ltx_wizard.tui.screens.paths import PathsScreen
from ltx_wizard.tui.screens.preprocess import PreprocessScreen
from ltx_wizard.tui.widgets.steps import render_steps
from ltx_wizard.tui.wizard_screen import WizardScreen
from tests.tui.helpers import FAST_SIM, make_app, settle, wait_until

TUI = Path(__file__).resolve().parents[2] / "ltx_wizard" / "tui"


def _screen_classes() -> list[type[WizardScreen]]:
    found = []
    for info in pkgutil.iter_modules(screens_pkg.__path__):
        module = importlib.import_module(f"{screens_pkg.__name__}.{info.name}")
        found += [
            cls
            for _, cls in inspect.getmembers(module, inspect.isclass)
            if issubclass(cls, WizardScreen) and cls.__module__ == module.__name__
        ]
    return found


def test_navigation_names_a_screen_for_every_phase_and_each_shows_its_own():
    assert set(SCREENS) == set(phases.BY_ID)
    for phase in phases.PHASES:
        cls = screen_class(phase)
        if cls is PreprocessScreen:  # one screen for both preprocessing steps: its step says which
            step = "one" if phase is phases.PREPROCESS_ONE else "full"
            assert PreprocessScreen.phase.fget(SimpleNamespace(step=step)) is phase
        else:
            assert cls.PHASE is phase, cls.__name__


@pytest.mark.parametrize("cls", _screen_classes(), ids=lambda c: c.__name__)
def test_every_screen_takes_its_f1_title_from_its_phase(cls):
    assert cls.PHASE in phases.PHASES
    assert help_for_class(cls)[0] == cls.PHASE.f1_title


def test_no_screen_picks_a_step_number_of_its_own():
    picked = []
    for path in sorted(TUI.rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if re.search(r"[\"']Step \d|(?<!class )StepBar\((?!self\.phase\b)", line):
                picked.append(f"{path.relative_to(TUI)}:{number}: {line.strip()}")
    assert not picked, "\n".join(picked)


@pytest.mark.parametrize("phase", phases.PHASES, ids=lambda p: p.id)
def test_the_bar_names_the_phase_on_screen_and_fits_80_columns(phase):
    for tuned in (True, False):
        bar = render_steps(phase, tuned, width=78).plain  # 80 columns less the bar's padding
        assert f"[{phase.bar_label}]" in bar and bar.count("[") == 1
        assert len(bar) <= 78, bar
        before = [s for s in phases.STEPS if s.number < phase.step.number]
        assert all(f"{s.number} " in bar for s in phases.STEPS)
        assert sum("✓" in part or "skipped" in part for part in bar.split(" › ")) == len(before)
    paths = "1 Box ✓ › [2 Data: Paths] › 3 Plan › 4 Autotune › 5 Train › 6 Monitor"
    assert render_steps(phases.PATHS).plain == paths


async def test_intent_and_paths_screens_draw_their_own_phase(demo_root):
    app = make_app(demo_root, first_run_screens=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "[1 Box: GPUs]" in str(app.screen.query_one("#steps").render())
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "IntentScreen")
        bar = str(app.screen.query_one("#steps").render())
        assert "[2 Data: Intent]" in bar and "1 Box ✓" in bar and "Paths" not in bar
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpDialog))
        assert app.screen.title_text == "Step 2 · Data: What should the model learn?"
        await pilot.press("escape")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "IntentScreen")
        app.screen.query_one("#intent-text").focus()
        await pilot.press(*"a style lora of my paintings", "enter")
        await settle(pilot)
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "PathsScreen")
        assert "[2 Data: Paths]" in str(app.screen.query_one("#steps").render())


async def test_the_preprocess_screen_draws_the_step_it_runs(demo_root, monkeypatch):
    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "0")  # the simulated preprocessor
    monkeypatch.setenv(AUDIO_DECODE_ENV, "0")  # it stops before encoding: the screen stays
    app = make_app(demo_root, demo_data="clips", **FAST_SIM)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await wait_until(
            pilot, lambda: isinstance(app.screen, PathsScreen) and app.screen._checked is not None
        )
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: getattr(app.screen, "draft", None) is not None)
        await pilot.press("a")
        await wait_until(pilot, lambda: isinstance(app.screen, PreprocessScreen))
        assert "[4 Autotune: One clip]" in str(app.screen.query_one("#steps").render())
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpDialog))
        assert app.screen.title_text == "Step 4 · Autotune: Preprocessing one clip"
