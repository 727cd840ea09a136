"""The wizard's App: its options and shared state, start and leave; its roles live beside it.

Screens hold widgets; the App holds what the run needs (probe, assessment, paths, plan, autotune
summary) so that any screen can be popped without losing it. It holds its roles as objects:
navigation between phases (`nav`, navigation.py), the autotune worker and its messages
(`autotune`, autotune_controller.py, which outlives the screen that shows it); signal handling is
signals.py's. Screens, dialogs and roles name this class for types only (under TYPE_CHECKING): at
run time nothing in `tui/` imports this module (pyproject.toml's `tui-app-on-top` contract).
"""

from __future__ import annotations

import sys
import tempfile
import threading
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from textual import events
from textual.actions import SkipAction
from textual.app import App
from textual.binding import Binding
from textual.command import Provider

from ltx_wizard.core.io.run_folder import CONFIG, PLAN_MD
from ltx_wizard.tui.navigation import PhaseNavigation
from ltx_wizard.tui.options import WizardOptions
from ltx_wizard.tui.state import WizardState

if TYPE_CHECKING:
    from ltx_wizard.core.base.stand_in import StandIns
    from ltx_wizard.demo.builder import DemoSetup
    from ltx_wizard.tui.autotune_controller import AutotuneController


ORPHANS_NOTE_S = 30.0  # the start-up's line on orphans it stopped: long enough to read it twice


def _wizard_commands() -> type[Provider]:
    """The palette's wizard commands, imported when the palette first opens (not at start-up)."""
    from ltx_wizard.tui.palette import WizardCommands

    return WizardCommands


class WizardApp(App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "LTX-2 training wizard"
    # ctrl+p: the wizard's commands (tui/palette.py) beside Textual's own (the theme picker)
    COMMANDS = App.COMMANDS | {_wizard_commands}
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", priority=True),
        # priority: a dialog (a modal screen) keeps the App's plain bindings from its keys, and
        # F1 there must open that dialog's own help
        Binding("f1", "screen_help", "Help", priority=True),
        # Escape closes the All keys panel and only that; with no panel it goes on as before
        Binding("escape", "close_keys_panel", show=False, priority=True),
        # what the wizard ran for this run (tui/dialogs/commands.py), wherever a run folder is known
        Binding("at", "show_commands", "Commands", show=False),
    ]

    def __init__(self, options: WizardOptions | None = None) -> None:
        super().__init__()
        self.options = options or WizardOptions()
        self.state = WizardState()
        self.nav = PhaseNavigation(self)
        self.demo: DemoSetup | None = None  # in --demo mode
        self._demo_lock = threading.Lock()
        self._autotune: AutotuneController | None = None
        self._unwatch_signals: Callable[[], None] | None = None
        self._unrecord: Callable[[], None] | None = None
        self.target_run_dir: Path | None = None
        self.exit_errors: list[str] = []  # one-line `ltx-wizard: ...` messages printed on exit
        from ltx_wizard.demo.sim.stand_in import choose_stand_ins

        # the one choice of the TUI's stand-in (cli.py makes a command's), handed to every phase
        self.stand_ins: StandIns = choose_stand_ins(self.simulate, env=self.options.sim_env)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, (events.Key, events.MouseDown)) and not event.is_forwarded:
            # What the key opens takes many turns of the loop: trial output waits more meanwhile.
            from ltx_wizard.core.proc.child import favour_ui

            favour_ui()
        await super().on_event(event)

    def notify(self, message: str, *, markup: bool = True, **kwargs: Any) -> None:
        """Every toast shows outside text (paths, error messages) as typed: never as markup. Its
        own line breaks stay breaks (safe_markup shows a newline inside a value as ⏎)."""
        from ltx_wizard.tui.widgets.formatting import safe_markup

        if markup:
            message = "\n".join(safe_markup(line) for line in message.splitlines())
        super().notify(message, markup=markup, **kwargs)

    # ----- start -----------------------------------------------------------------------------
    @property
    def simulate(self) -> str | None:
        if self.options.simulate:
            return self.options.simulate
        if self.options.demo:  # known before the demo files are written (build_demo's default)
            from ltx_wizard.demo import DEMO_PRESET

            return DEMO_PRESET
        return None

    @property
    def demo_ready(self) -> bool:
        """No --demo, or its files are written: the Paths screen can read them."""
        return not self.options.demo or self.demo is not None

    def on_mount(self) -> None:
        from ltx_wizard.tui.signals import watch_signals

        self._unwatch_signals = watch_signals(self)
        from ltx_wizard.core.io.commands_file import record_into

        # every child is recorded in the run folder of the moment (core/proc/command_log.py)
        self._unrecord = record_into(lambda: self.state.run_dir)
        if not self.is_headless:
            # A wizard stuck writing to a dead terminal still leaves (and frees the run lock).
            from ltx_wizard.core.proc.registry import kill_all_now
            from ltx_wizard.core.io.terminal_watch import stream_fd, watch_terminal

            watch_terminal(stream_fd(sys.__stdout__), before_exit=kill_all_now)
        if self.options.trainer_root:
            self.state.edit_request(trainer_root=self.options.trainer_root)
        if self.options.orphans_reaped:  # the start stopped what a killed wizard left running
            self.notify(
                self.options.orphans_reaped, title="At start-up", severity="warning", timeout=ORPHANS_NOTE_S
            )
        if self.options.demo:
            self.sub_title = "demo"
        run_dir = Path(self.options.run_dir).expanduser() if self.options.run_dir else None
        if run_dir is not None and any((run_dir / n).exists() for n in (PLAN_MD.rel, CONFIG.rel)):
            self.build_demo()
            self.show_demo_title()
            self.state.run_dir = run_dir
            self.nav.open_existing_run(run_dir)
        else:
            # The demo files are written by a worker: the first screen is drawn at once.
            self.target_run_dir = run_dir  # a new run goes exactly there, when given
            # Pushed after Textual's start-up batch: a frame drawn inside it is discarded, and the
            # screen would reach the terminal in pieces (its nested widgets one layout later).
            self.call_later(self.nav.start_probe_screen)

    def show_demo_title(self) -> None:
        if self.options.demo:
            self.sub_title = f"demo · simulated {self.simulate}"

    def build_demo(self) -> None:
        """--demo: write the look-alike files once (from a probe screen's thread worker, or on the
        loop for an existing run) and fill the paths with them."""
        with self._demo_lock:
            if not self.options.demo or self.demo is not None:
                return
            from ltx_wizard.demo.builder import build_demo

            root = self.options.demo_root or Path(tempfile.mkdtemp(prefix="ltx-wizard-demo-"))
            demo = build_demo(root, simulate=self.options.simulate)
            if self.options.demo_data == "clips":
                data = demo.dataset_file
            elif self.options.demo_data == "raw":  # raw clips: the Prepare screen first
                data = None
            else:
                data = demo.data_root
            self.state.edit_request(
                checkpoint=demo.checkpoint,
                text_encoder=demo.text_encoder,
                data_root=data,
                trainer_root=self.options.trainer_root or demo.checkout,
            )
            self.demo = demo

    def on_unmount(self) -> None:
        from ltx_wizard.tui.heap import release_heap

        release_heap()
        if self._unrecord is not None:
            self._unrecord()
        if self._unwatch_signals is not None:
            self._unwatch_signals()

    @property
    def workspace(self) -> Path | None:
        if self.options.workspace:
            return Path(self.options.workspace).expanduser()
        return self.demo.workspace if self.demo is not None else None

    def now(self) -> datetime:
        return self.options.now()

    # ----- autotune: owned by the App (popping its screen never kills a trial) ---------------
    @property
    def autotune(self) -> AutotuneController:
        if self._autotune is None:  # imported when first needed: it loads the engine's events
            from ltx_wizard.tui.autotune_controller import AutotuneController

            self._autotune = AutotuneController(self)
        return self._autotune

    # ----- leaving ------------------------------------------------------------------------------
    def remove_demo_folder(self) -> str | None:
        from ltx_wizard.tui.exit_report import remove_demo_folder

        return remove_demo_folder(self)

    def after_exit(self) -> tuple[list[str], list[str]]:
        """Once the app has stopped: (lines for stdout, lines for stderr)."""
        from ltx_wizard.tui.exit_report import exit_report

        return exit_report(self)

    # ----- misc ------------------------------------------------------------------------------
    def action_screen_help(self) -> None:
        """F1: what this screen does and what comes next; the key list is one key away."""
        from ltx_wizard.tui.dialogs.help import HelpDialog

        if isinstance(self.screen, HelpDialog):
            # mypy (strict_optional off for the TUI) reads OnceModal[None] as None here
            self.screen.dismiss(None)  # type: ignore[attr-defined]  # see the line above
            return
        if self.screen.query("HelpPanel"):
            self.action_hide_help_panel()
        facts = getattr(self.screen, "help_facts", None)
        phase = getattr(self.screen, "phase", None)
        title = phase.f1_title if phase is not None else None
        self.push_screen(HelpDialog(type(self.screen), facts() if facts else None, title))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Escape is the panel's only while one is shown: the footer keeps the screen's own Escape
        if action == "close_keys_panel":
            return bool(self.screen.query("HelpPanel"))
        if action == "show_commands":
            return self.known_run_dir() is not None
        return True

    def known_run_dir(self) -> Path | None:
        """The run folder of the screen shown, else the run's: where `@` reads its commands."""
        return getattr(self.screen, "run_dir", None) or self.state.run_dir

    def action_show_commands(self) -> None:
        """@ (and the palette's command): the commands the wizard ran for this run."""
        from ltx_wizard.tui.dialogs.commands import CommandsDialog

        run_dir = self.known_run_dir()
        if run_dir is not None and not isinstance(self.screen, CommandsDialog):
            self.push_screen(CommandsDialog(run_dir))

    def action_close_keys_panel(self) -> None:
        """Escape over the All keys panel closes it; without one, the key goes to the screen."""
        if not self.screen.query("HelpPanel"):
            raise SkipAction()
        self.action_hide_help_panel()

    async def action_quit(self) -> None:
        if not self.state.autotune_running:
            self.exit(0, return_code=0)
            return
        from ltx_wizard.tui.dialogs.confirm import ConfirmDialog

        async def answered(yes: bool | None) -> None:
            if yes:  # stop the trial's whole process group before leaving: no orphan trainer
                from ltx_wizard.core.proc.registry import stop_all

                self.autotune.cancel()
                await stop_all()
                self.exit(0, return_code=0)

        self.push_screen(
            ConfirmDialog(
                "Autotune is running. Quit and stop the running trial?",
                yes="Quit",
                no="Keep going",
                title="Quit",
            ),
            answered,
        )


__all__ = ["WizardApp", "WizardOptions", "WizardState"]  # cli.py and tests import them here
