"""The wizard's App: options, shared state, the flow between screens, and app-owned workers.

Screens hold widgets; the App holds what the run needs (probe, assessment, paths, plan, autotune
summary) so that any screen can be popped without losing it, and so the autotune worker, owned
here, outlives the screen that shows it.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
from collections import deque
from dataclasses import dataclass, field, fields
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from textual import on, work
from textual.app import App
from textual.binding import Binding

from ltx_wizard.core.errors import EXIT_GATED, WizardError
from ltx_wizard.tui import messages
from ltx_wizard.tui.state import PathChoices, WizardState

if TYPE_CHECKING:  # pydantic models: imported by the probe's worker, after the first screen
    from ltx_wizard.core.assessment import Assessment
    from ltx_wizard.core.gpu import ProbeResult

LOG_BUFFER_LINES = 2000  # a flood of trainer output is dropped here, not queued as messages
# Latest-wins events: held here and posted once per display tick, so a trainer printing thousands
# of step lines a second costs a few messages, not one each (which filled the message queue).
COALESCED_EVENTS = ("TrialProgress", "VramUpdate")


@dataclass(frozen=True)
class WizardOptions:
    """How the wizard was started; tests build it with from_args(None, **overrides)."""

    from_csv: str | None = None
    simulate: str | None = None
    vram_gb: float | None = None
    demo: bool = False
    trainer_root: str | None = None
    workspace: str | None = None
    run_dir: str | None = None
    trainer_cmd: str | None = None
    nodes: int = 1  # --nodes: the plan is for this many machines like this one (Slurm)
    # Injection points for tests and the screenshot script.
    now: Callable[[], datetime] = datetime.now
    demo_root: Path | None = None
    probe_fn: Callable[[], ProbeResult] | None = None
    cursor_blink: bool = True
    check_delay_s: float = 0.4  # debounce of live path validation
    engine_factory: Callable[..., Any] | None = None  # replaces AutotuneEngine (scripted tests)
    engine_kwargs: dict[str, Any] = field(default_factory=dict)  # e.g. sim_env for the tests
    host_fn: Callable[[Path], Any] | None = None  # run folder -> host_limits.HostReadings

    @classmethod
    def from_args(cls, args: argparse.Namespace | None = None, **overrides: Any) -> "WizardOptions":
        values: dict[str, Any] = {}
        if args is not None:
            for f in fields(cls):
                if hasattr(args, f.name) and getattr(args, f.name) is not None:
                    values[f.name] = getattr(args, f.name)
        values.update(overrides)
        return cls(**values)


class WizardApp(App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "LTX-2 training wizard"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", priority=True),
        Binding("f1", "screen_help", "Help"),
    ]

    def __init__(self, options: WizardOptions | None = None) -> None:
        super().__init__()
        self.options = options or WizardOptions()
        self.state = WizardState()
        self.demo = None  # demo.builder.DemoSetup in --demo mode
        self.log_buffer: deque[str] = deque(maxlen=LOG_BUFFER_LINES)
        self._held_events: dict[str, Any] = {}
        self._demo_lock = threading.Lock()
        self._engine: Any | None = None
        self.target_run_dir: Path | None = None
        self.exit_errors: list[str] = []  # one-line `ltx-wizard: ...` messages printed on exit

    def notify(self, message: str, *, markup: bool = True, **kwargs: Any) -> None:
        """Every toast shows outside text (paths, error messages) as typed: never as markup."""
        from ltx_wizard.tui.widgets.formatting import safe_markup

        super().notify(safe_markup(message) if markup else message, markup=markup, **kwargs)

    # ----- start -----------------------------------------------------------------------------
    @property
    def simulate(self) -> str | None:
        if self.options.simulate:
            return self.options.simulate
        return self.demo.simulate if self.demo is not None else None

    def on_mount(self) -> None:
        self._watch_signals()
        if not self.is_headless:
            # A wizard stuck writing to a dead terminal still leaves (and frees the run lock).
            from ltx_wizard.core.autotune.process import kill_all_now
            from ltx_wizard.core.terminal_watch import stream_fd, watch_terminal

            watch_terminal(stream_fd(sys.__stdout__), before_exit=kill_all_now)
        if self.options.trainer_root:
            self.state.paths.trainer_root = self.options.trainer_root
        if self.options.demo:
            self.sub_title = "demo"
        run_dir = Path(self.options.run_dir).expanduser() if self.options.run_dir else None
        if run_dir is not None and any((run_dir / n).exists() for n in ("plan.md", "config.yaml")):
            from ltx_wizard.tui.screens.existing_run import ExistingRunScreen

            self.build_demo()
            self._demo_title()
            self.state.run_dir = run_dir
            self.push_screen(ExistingRunScreen(run_dir))
        else:
            # The demo files are written by the probe's worker: the first screen is drawn at once.
            self.target_run_dir = run_dir  # a new run goes exactly there, when given
            self.start_probe_screen()

    def _demo_title(self) -> None:
        if self.demo is not None:
            self.sub_title = f"demo · simulated {self.demo.simulate}"

    def build_demo(self) -> None:
        """--demo: write the look-alike files once (from the probe's worker thread, or on the loop
        for an existing run) and fill the paths with them."""
        with self._demo_lock:
            if not self.options.demo or self.demo is not None:
                return
            from ltx_wizard.demo.builder import build_demo

            root = self.options.demo_root or Path(tempfile.mkdtemp(prefix="ltx-wizard-demo-"))
            demo = build_demo(root, simulate=self.options.simulate)
            paths = self.state.paths
            paths.checkpoint = str(demo.checkpoint)
            paths.text_encoder = str(demo.text_encoder)
            paths.data_root = str(demo.data_root)
            paths.trainer_root = self.options.trainer_root or str(demo.checkout)
            self.demo = demo

    def _watch_signals(self) -> None:
        """SIGHUP (the SSH connection dropped), SIGTERM, SIGINT: stop every trial's process group
        first, then leave. Without this, a hang-up would kill the wizard and orphan the trainer,
        which runs in a session of its own."""
        import asyncio
        import os
        import signal

        from ltx_wizard.core.autotune.process import install_signal_handlers

        async def leave(signum: int) -> None:
            # The trial groups are stopped by now; give the engine a moment to log the cancelled
            # trial, so that a resume knows where it stood.
            self.cancel_autotune()
            for _ in range(100):
                if not self.state.autotune_running:
                    break
                await asyncio.sleep(0.05)
            if signum == signal.SIGHUP and not self.is_headless:
                # The terminal is gone: Textual's orderly shutdown would block forever writing
                # the terminal reset to it. Everything of ours is already stopped and flushed.
                self.remove_demo_folder()
                os._exit(128 + signum)
            self.exit(return_code=128 + signum)

        try:
            self._unwatch_signals = install_signal_handlers(asyncio.get_running_loop(), leave)
        except (NotImplementedError, RuntimeError, ValueError):  # no signals here (not main thread)
            self._unwatch_signals = None

    def on_unmount(self) -> None:
        if getattr(self, "_unwatch_signals", None) is not None:
            self._unwatch_signals()

    def start_probe_screen(self) -> None:
        from ltx_wizard.tui.screens.probe import ProbeScreen

        self.push_screen(ProbeScreen())

    @property
    def workspace(self) -> Path | None:
        if self.options.workspace:
            return Path(self.options.workspace).expanduser()
        return self.demo.workspace if self.demo is not None else None

    def now(self) -> datetime:
        return self.options.now()

    # ----- probe -> gate -> paths ------------------------------------------------------------
    def probe_finished(self) -> "messages.ProbeFinished":
        """Blocking, for thread workers only: the probe's result or its one-line failure."""
        try:
            return messages.ProbeFinished(self.run_probe(), None)
        except WizardError as exc:
            return messages.ProbeFinished(None, exc.message)
        except Exception as exc:  # a driver oddity must not take the UI down
            return messages.ProbeFinished(None, f"probe failed: {type(exc).__name__}: {exc}")

    def run_probe(self) -> ProbeResult:
        """Blocking: called from a thread worker only."""
        self.build_demo()
        if self.options.probe_fn is not None:
            return self.options.probe_fn()
        from ltx_wizard.core.probe import resolve_probe

        return resolve_probe(from_csv=self.options.from_csv, simulate=self.simulate)

    def set_probe(self, probe: ProbeResult, vram_gb: float | None = None) -> Assessment:
        from ltx_wizard.core.assessment import assess

        self._demo_title()
        self.state.probe = probe
        self.state.assessment = assess(probe, vram_gb=vram_gb or self.options.vram_gb)
        return self.state.assessment

    def proceed_from_probe(self) -> None:
        """Ask for unknown memory, pass the gate, then go to the paths screen."""
        assessment = self.state.assessment
        if assessment is None or self.state.probe is None:
            return
        if assessment.per_gpu_vram_gb is None:
            from ltx_wizard.tui.dialogs.vram_ask import VramAskDialog

            name = assessment.probe.gpus[0].name if assessment.probe.gpus else "this GPU"

            def stated(gb: int | None) -> None:
                if gb is not None:
                    self.set_probe(self.state.probe, vram_gb=gb)  # type: ignore[arg-type]
                    self.refresh_probe_screen()
                    self.proceed_from_probe()

            self.push_screen(VramAskDialog(name), stated)
            return
        if assessment.gate_blocked and not self.state.accept_risk:
            from ltx_wizard.tui.dialogs.gate import GateDialog

            def decided(go_on: bool | None) -> None:
                if not go_on:
                    self.exit_errors.append(
                        f"ltx-wizard: stopped at the minimum gate ({assessment.per_gpu_vram_gb} GB per GPU, "
                        "the trainer needs 32 GB); nothing was written. Use a GPU with 32 GB or more, "
                        "or run again and choose Try anyway (at your own risk)"
                    )
                    self.exit(EXIT_GATED, return_code=EXIT_GATED)
                    return
                self.state.accept_risk = True
                self.refresh_probe_screen()
                self.open_paths()

            self.push_screen(GateDialog(assessment.gate_message or ""), decided)
            return
        self.open_paths()

    def refresh_probe_screen(self) -> None:
        from ltx_wizard.tui.screens.probe import ProbeScreen

        for screen in self.screen_stack:
            if isinstance(screen, ProbeScreen):
                screen.show_assessment()

    def open_paths(self) -> None:
        from ltx_wizard.tui.screens.paths import PathsScreen

        self.push_screen(PathsScreen())

    def open_summary(self) -> None:
        from ltx_wizard.tui.screens.summary import SummaryScreen

        self.push_screen(SummaryScreen())

    def open_autotune(self) -> None:
        from ltx_wizard.tui.screens.autotune import AutotuneScreen

        self.push_screen(AutotuneScreen())

    def open_done(self) -> None:
        from ltx_wizard.tui.screens.done import DoneScreen

        self.push_screen(DoneScreen())

    # ----- autotune (owned here, so popping its screen never kills a trial) ------------------
    def start_autotune(self) -> None:
        if self.state.autotune_running or self.state.run_dir is None:
            return
        self.state.summary = None
        self.state.autotune_error = None
        self.state.autotune_running = True
        self.log_buffer.clear()
        self._held_events.clear()
        self._autotune_worker()

    @work(exclusive=True, group="autotune", exit_on_error=False)
    async def _autotune_worker(self) -> None:
        summary = None
        error: str | None = None
        try:
            if self.options.engine_factory is not None:
                factory = self.options.engine_factory
            else:
                from ltx_wizard.core.autotune.engine import AutotuneEngine as factory

            assert self.state.run_dir is not None and self.state.probe is not None
            from ltx_wizard.core.autotune.trial_runner import split_trainer_cmd

            cmd = split_trainer_cmd(self.options.trainer_cmd) if self.options.trainer_cmd else None
            self._engine = factory(
                self.state.run_dir,
                probe=self.state.probe,
                assessment=self.state.assessment,
                trainer_cmd=cmd,
                simulate=self.simulate,
                trainer_root=Path(self.state.paths.trainer_root) if self.state.paths.trainer_root else None,
                on_event=self._on_engine_event,
                **self.options.engine_kwargs,
            )
            summary = await self._engine.run()
        except WizardError as exc:
            error = exc.message
        except Exception as exc:  # the UI must survive an engine bug and say so in one line
            error = f"autotune failed: {type(exc).__name__}: {exc}"
        finally:
            self._engine = None
        self.state.autotune_running = False
        self.state.summary = summary
        self.state.autotune_error = error
        self.post_held_events()
        self.post_message(messages.AutotuneStopped(summary, error))

    def _on_engine_event(self, event: Any) -> None:
        # Called on the event loop: log lines go to a bounded buffer that the screen drains in
        # batches; progress and VRAM readings wait for the next display tick (the latest wins);
        # everything else is a message, posted after what was held so that order is kept.
        kind = type(event).__name__
        if kind == "LogLine":
            self.log_buffer.append(event.text)
        elif kind in COALESCED_EVENTS:
            self._held_events[kind] = event
        else:
            self.post_held_events()
            self.post_message(messages.AutotuneEvent(event))

    def post_held_events(self) -> None:
        """Post the held progress and VRAM events; the autotune screen calls this every tick."""
        held, self._held_events = self._held_events, {}
        for event in held.values():
            self.post_message(messages.AutotuneEvent(event))

    def cancel_autotune(self) -> None:
        if self._engine is not None:
            self._engine.cancel()

    @on(messages.AutotuneEvent)
    @on(messages.AutotuneStopped)
    def _forward_autotune(self, message: messages.Message) -> None:
        from ltx_wizard.tui.screens.autotune import AutotuneScreen

        from textual.css.query import NoMatches

        for screen in self.screen_stack:
            if isinstance(screen, AutotuneScreen) and screen.is_mounted:
                try:
                    screen.handle(message)
                except NoMatches:  # leaving (e.g. after SIGHUP): its widgets are already gone
                    pass

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
            self.screen.dismiss(None)
            return
        if self.screen.query("HelpPanel"):
            self.action_hide_help_panel()
        self.push_screen(HelpDialog(type(self.screen).__name__))

    async def action_quit(self) -> None:
        if not self.state.autotune_running:
            self.exit(0, return_code=0)
            return
        from ltx_wizard.tui.dialogs.confirm import ConfirmDialog

        async def answered(yes: bool | None) -> None:
            if yes:  # stop the trial's whole process group before leaving: no orphan trainer
                from ltx_wizard.core.autotune.process import stop_all

                self.cancel_autotune()
                await stop_all("cancelled")
                self.exit(0, return_code=0)

        self.push_screen(ConfirmDialog("Autotune is running. Quit and stop the running trial?",
                                       yes="Quit", no="Keep going", title="Quit"), answered)


__all__ = ["WizardApp", "WizardOptions", "PathChoices", "WizardState"]
