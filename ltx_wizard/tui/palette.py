"""The command palette's wizard commands (ctrl+p), beside Textual's own (the theme picker, keys,
quit): which apply is decided by core/base/palette_commands.py from facts gathered here; running
one calls the screen's own action (its key does the same), goes back to a phase, or opens a run
file in $EDITOR (the App suspended meanwhile) or, without one, in a read-only view."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable

from textual.command import DiscoveryHit, Hit, Hits, Provider

from ltx_wizard.core.base.palette_commands import PaletteCommand, PaletteFacts, palette_commands
from ltx_wizard.tui.run_file_open import RUN_FILES, open_run_file

if TYPE_CHECKING:
    from textual.screen import Screen

    from ltx_wizard.tui.app import WizardApp

# A palette command's id -> the screen action it calls (the screen's key does the same).
ACTIONS = {
    "monitor": "monitor",
    "stop": "stop",
    "resume": "resume",
    "evaluate": "results",
    "compare": "compare",
    "copy_scp": "copy",
}


def run_dir_of(app: WizardApp, screen: Screen) -> Path | None:
    found = getattr(screen, "run_dir", None) or app.state.run_dir
    return Path(found) if found is not None else None


def gather_facts(app: WizardApp, screen: Screen) -> PaletteFacts:
    """What the palette's rules read, from the screen it was opened over and the screens below."""
    from ltx_wizard.tui.screens.existing_run import has_training
    from ltx_wizard.tui.screens.monitor import MonitorScreen
    from ltx_wizard.tui.screens.monitor.compare_offer import compare_offered
    from ltx_wizard.tui.screens.results import ResultsScreen

    stack = app.screen_stack
    below = stack[: stack.index(screen)] if screen in stack else []
    run_dir = run_dir_of(app, screen)
    status = screen.status if isinstance(screen, MonitorScreen) else None
    # a read-only Monitor (another wizard holds the run) refuses what would change the run
    holds = not isinstance(screen, MonitorScreen) or not screen.read_only()
    results = screen if isinstance(screen, ResultsScreen) else None
    phase = getattr(screen, "phase", None)
    return PaletteFacts(
        current=phase.id if phase is not None else None,
        below=tuple(p.id for p in (getattr(s, "phase", None) for s in below) if p is not None),
        run_files=tuple(f.rel for f in RUN_FILES if run_dir is not None and f.path(run_dir).is_file()),
        training=run_dir is not None and has_training(run_dir),
        live=holds and status is not None and status.state == "live",
        resumable=holds and status is not None and status.resumable,
        eval_running=results is not None and results.running,
        render_selected=results is not None
        and (results._selected(True) or results._selected(False)) is not None,
        compare_offered=holds and isinstance(screen, MonitorScreen) and compare_offered(screen),
    )


def command_runner(app: WizardApp, screen: Screen, command: PaletteCommand) -> Callable[[], object]:
    kind, _, name = command.id.partition(":")
    if kind == "goto":
        return lambda: go_to_phase(app, name)
    if kind == "open":
        run_dir = run_dir_of(app, screen)
        return lambda: open_run_file(app, Path(run_dir or ".") / name)
    return getattr(screen, f"action_{ACTIONS[command.id]}")


def go_to_phase(app: WizardApp, phase_id: str) -> None:
    """Pop the screens above the phase's screen, as Esc would one by one."""
    for index in range(len(app.screen_stack) - 1, 0, -1):
        phase = getattr(app.screen_stack[index], "phase", None)
        if phase is not None and phase.id == phase_id:
            for _ in range(len(app.screen_stack) - 1 - index):
                app.pop_screen()
            return


class WizardCommands(Provider):
    """The wizard's commands that apply on the screen the palette was opened over."""

    def _commands(self) -> list[tuple[PaletteCommand, Callable[[], object]]]:
        app: WizardApp = self.app  # type: ignore[assignment]  # the wizard's App (no import at run time)
        commands = palette_commands(gather_facts(app, self.screen))
        return [(command, command_runner(app, self.screen, command)) for command in commands]

    async def discover(self) -> Hits:
        for command, run in self._commands():
            yield DiscoveryHit(command.title, run, help=command.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command, run in self._commands():
            score = matcher.match(command.title)
            if score > 0:
                yield Hit(score, matcher.highlight(command.title), run, help=command.help)
