"""Every phase screen is opened by tui/navigation.py (`app.nav`), through the phase model, and by
no other module (issue 42, item 6: the phase list is one model that the step bar, the
breadcrumbs, F1 titles and navigation read). A screen that built or pushed a phase screen
itself would step around the burst guard and the order navigation keeps. Dialogs are not
phases: any module may push them."""

from __future__ import annotations

import ast
from pathlib import Path

from ltx_wizard.tui.navigation import SCREENS

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "ltx_wizard"
NAVIGATION = PACKAGE / "tui" / "navigation.py"
PHASE_SCREENS = frozenset(name for _, name in SCREENS.values())
PUSHES = frozenset({"push_screen", "switch_screen"})


def _called(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _names(node: ast.AST) -> set[str]:
    return {
        n.id if isinstance(n, ast.Name) else n.attr
        for n in ast.walk(node)
        if isinstance(n, (ast.Name, ast.Attribute))
    }


def phase_screens_opened(source: str) -> list[str]:
    """`line: what` for each phase screen this source builds (a call of its class, or of
    navigation's screen_class) or hands to push_screen / switch_screen."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = _called(node)
        if name in PHASE_SCREENS or name == "screen_class":
            found.append(f"{node.lineno}: {name}(...)")
        elif name in PUSHES:
            handed = set().union(*(_names(arg) for arg in [*node.args, *(k.value for k in node.keywords)]))
            found += [f"{node.lineno}: {name}({screen})" for screen in sorted(handed & PHASE_SCREENS)]
    return found


def test_the_check_finds_a_phase_screen_built_or_pushed_outside_navigation():
    """The check itself: each way a module could open a phase screen is seen (it would pass
    vacuously if it saw none), and a dialog is not a phase."""
    source = """
from ltx_wizard.tui.screens import intent, results
app.push_screen(IntentScreen())
self.app.push_screen(SetupScreen(then=ask))
screen = results.ResultsScreen(run_dir)
app.switch_screen(MonitorScreen)
self.app.push_screen(screen_class(phase)())
app.push_screen(HelpDialog(type(screen)), done)
isinstance(app.screen, ProbeScreen)
"""
    assert sorted(phase_screens_opened(source)) == [
        "3: IntentScreen(...)",
        "3: push_screen(IntentScreen)",
        "4: SetupScreen(...)",
        "4: push_screen(SetupScreen)",
        "5: ResultsScreen(...)",
        "6: switch_screen(MonitorScreen)",
        "7: screen_class(...)",
    ]


def test_only_navigation_opens_a_phase_screen():
    assert len(PHASE_SCREENS) >= 12  # every phase's screen is named (Preprocess serves two)
    opened = {
        str(path.relative_to(ROOT)): found
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != NAVIGATION and (found := phase_screens_opened(path.read_text(encoding="utf-8")))
    }
    assert opened == {}, "open these through app.nav (tui/navigation.py), not by hand"


def test_navigation_opens_them_through_the_phase_model():
    """navigation.py itself builds a phase screen in one place, `_open_phase`, from the phase's
    SCREENS entry, behind the burst guard."""
    tree = ast.parse(NAVIGATION.read_text(encoding="utf-8"))
    builders = [
        function.name
        for function in ast.walk(tree)
        if isinstance(function, ast.FunctionDef) and phase_screens_opened(ast.unparse(function))
    ]
    assert builders == ["_open_phase"]
