"""The flow between the wizard's phases, in the order of the phase model (core/base/phases.py):
probe -> setup (where something is missing) -> intent -> prepare (no data given yet) -> paths ->
plan -> preprocess one clip -> autotune -> preprocess every clip -> done -> monitor -> results,
an existing run folder offered at start-up instead; and the dialogs that stand between them.

An object the App holds as `app.nav`: screens call `self.app.nav.open_summary()` and the like.
It keeps no state of its own: where the run stands is the App's state, read through `app`.
`SCREENS` names each phase's screen, so that every phase of the model has one and each screen
draws its step bar and F1 title from the phase it shows. Every phase screen is opened here, and
only here, through `_open_phase` (tests/project/test_phase_navigation.py): a screen that needs
arguments (a run folder, a step) gets them through its `open_*` method. Dialogs are not phases.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ltx_wizard.core.base import phases
from ltx_wizard.core.base.errors import EXIT_GATED, WizardError
from ltx_wizard.tui import messages

if TYPE_CHECKING:  # imported when a probe is shown (set_probe), not with the app
    from collections.abc import Callable

    from ltx_wizard.core.gpu.assessment import Assessment
    from ltx_wizard.core.gpu.devices import ProbeResult
    from ltx_wizard.core.preprocess.preprocess_state import Step
    from ltx_wizard.tui.app import WizardApp  # for types only: the App imports this module
    from ltx_wizard.tui.wizard_screen import WizardScreen

# Each phase's screen (module, class), imported when first opened: start-up loads none of them.
SCREENS: dict[str, tuple[str, str]] = {
    phases.PROBE.id: ("probe", "ProbeScreen"),
    phases.SETUP.id: ("setup", "SetupScreen"),
    phases.INTENT.id: ("intent", "IntentScreen"),
    phases.PREPARE.id: ("prepare", "PrepareScreen"),
    phases.PATHS.id: ("paths", "PathsScreen"),
    phases.PLAN.id: ("summary", "SummaryScreen"),
    phases.EXISTING_RUN.id: ("existing_run", "ExistingRunScreen"),
    phases.PREPROCESS_ONE.id: ("preprocess", "PreprocessScreen"),
    phases.AUTOTUNE.id: ("autotune", "AutotuneScreen"),
    phases.PREPROCESS_FULL.id: ("preprocess", "PreprocessScreen"),
    phases.DONE.id: ("done", "DoneScreen"),
    phases.MONITOR.id: ("monitor", "MonitorScreen"),
    phases.RESULTS.id: ("results", "ResultsScreen"),
}


def screen_class(phase: phases.Phase) -> type[WizardScreen]:
    module, name = SCREENS[phase.id]
    found: type[WizardScreen] = getattr(importlib.import_module(f"ltx_wizard.tui.screens.{module}"), name)
    return found


def _failure(exc: Exception) -> str:
    """A probe's one-line failure: a driver oddity or a full disk must not take the UI down."""
    if isinstance(exc, WizardError):
        return exc.message
    return f"probe failed: {type(exc).__name__}: {exc}"


class PhaseNavigation:
    """Opens the next phase's screen on `app`, and runs the probe that the first phase shows."""

    def __init__(self, app: WizardApp) -> None:
        self.app = app

    def start_probe_screen(self) -> None:
        self._open_phase(phases.PROBE)

    def open_existing_run(self, run_dir: Path) -> None:
        """A run folder with a plan, given at start-up; a run that trains or trained is watched
        at once (the Monitor above it; Esc: the folder)."""
        from ltx_wizard.tui.screens.existing_run import has_training

        self._open_phase(phases.EXISTING_RUN, run_dir)
        if self.app.options.open_monitor or has_training(run_dir):  # `ltx-wizard monitor RUN`
            self.open_monitor(run_dir)

    def probe_finished(self) -> messages.ProbeFinished:
        """Blocking, for thread workers only: the probe's result or its one-line failure."""
        try:
            return messages.ProbeFinished(self.run_probe(), None)
        except Exception as exc:
            return messages.ProbeFinished(None, _failure(exc))

    def preset_probe(self) -> messages.ProbeFinished | None:
        """A simulated preset's probe, on the loop: it is pure data (no driver, no file), so the
        first frame can show the GPU table and tier. None: this probe needs a thread worker."""
        options, simulate = self.app.options, self.app.simulate
        if options.probe_fn is not None or options.from_csv or not simulate:
            return None  # (--from-csv with a preset: resolve_probe's refusal, from the worker)
        from ltx_wizard.core.gpu.presets import simulated_probe

        try:
            return messages.ProbeFinished(simulated_probe(simulate), None)
        except Exception as exc:
            return messages.ProbeFinished(None, _failure(exc))

    def demo_written(self) -> messages.DemoReady:
        """Blocking, for thread workers only: --demo's look-alike files, written once the
        preset's probe is on screen; a failure reads as a probe's (the probe wrote them first)."""
        try:
            self.app.build_demo()
        except Exception as exc:
            return messages.DemoReady(_failure(exc))
        return messages.DemoReady(None)

    def run_probe(self) -> ProbeResult:
        """Blocking: called from a thread worker only."""
        self.app.build_demo()
        options = self.app.options
        if options.probe_fn is not None:
            return options.probe_fn()
        from ltx_wizard.core.gpu.probe import resolve_probe

        return resolve_probe(from_csv=options.from_csv, simulate=self.app.simulate)

    def set_probe(self, probe: ProbeResult, vram_gb: float | None = None) -> Assessment:
        from ltx_wizard.core.gpu.assessment import assess

        self.app.show_demo_title()
        state = self.app.state
        state.probe = probe
        state.assessment = assess(probe, vram_gb=vram_gb or self.app.options.vram_gb)
        return state.assessment

    def proceed_from_probe(self) -> None:
        """Ask for unknown memory, pass the gate, then go to the paths screen."""
        assessment = self.app.state.assessment
        if assessment is None or self.app.state.probe is None:
            return
        from ltx_wizard.tui.dialogs.once import OnceModal

        if isinstance(self.app.screen, OnceModal):  # its question is open already (a burst)
            return
        if assessment.per_gpu_vram_gb is None:
            from ltx_wizard.tui.dialogs.vram_ask import VramAskDialog

            name = assessment.probe.gpus[0].name if assessment.probe.gpus else "this GPU"

            def stated(gb: int | None) -> None:
                if gb is not None:
                    self.set_probe(self.app.state.probe, vram_gb=gb)
                    self.refresh_probe_screen()
                    self.proceed_from_probe()

            self.app.push_screen(VramAskDialog(name), stated)
            return
        if assessment.gate_blocked and not self.app.state.accept_risk:
            from ltx_wizard.tui.dialogs.gate import GateDialog

            def decided(go_on: bool | None) -> None:
                if not go_on:
                    self.app.exit_errors.append(
                        f"ltx-wizard: stopped at the minimum gate ({assessment.per_gpu_vram_gb} GB per GPU, "
                        "the trainer needs 32 GB); nothing was written. Use a GPU with 32 GB or more, "
                        "or run again and choose Try anyway (at your own risk)"
                    )
                    self.app.exit(EXIT_GATED, return_code=EXIT_GATED)
                    return
                self.app.state.accept_risk = True
                self.refresh_probe_screen()
                self.after_probe()

            self.app.push_screen(GateDialog(assessment.gate_message or ""), decided)
            return
        self.after_probe()

    def after_probe(self) -> None:
        """Setup offers where something is missing, the intent question, then Paths (#33). No setup
        for --demo or simulated GPUs (their trainer is the simulated one); `first_run_screens=False`
        goes straight to the data step."""
        if not self.app.options.first_run_screens:
            self.open_data_step()
        elif self.app.options.demo or self.app.simulate:
            self.open_intent()
        else:
            self.open_setup(then=self.open_intent)

    def open_setup(self, then: Callable[[], None] | None = None) -> None:
        """The setup offers; `then` is what its Continue opens (after it leaves)."""
        self._open_phase(phases.SETUP, then=then)

    def open_intent(self) -> None:
        self._open_phase(phases.INTENT)

    def refresh_probe_screen(self) -> None:
        from ltx_wizard.tui.screens.probe import ProbeScreen

        for screen in self.app.screen_stack:
            if isinstance(screen, ProbeScreen):
                screen.show_assessment()

    def _open_phase(self, phase: phases.Phase, *args: Any, **kwargs: Any) -> None:
        """Push the phase's screen once: a burst (two presses of Continue queued before the first
        was handled) must not stack a second copy. The phase, not the class, is compared: one
        Preprocess screen serves two phases, and the full step opens above the one-clip step."""
        if getattr(self.app.screen, "phase", None) is not phase:
            self.app.push_screen(screen_class(phase)(*args, **kwargs))

    def open_data_step(self) -> None:
        """No data given yet: the Prepare screen (raw clips to a dataset file) comes first."""
        if self.app.state.request.data_root is not None:
            self.open_paths()
        else:
            self.open_prepare()

    def open_prepare(self) -> None:
        self._open_phase(phases.PREPARE)

    def open_paths(self) -> None:
        self._open_phase(phases.PATHS)

    def open_summary(self) -> None:
        self._open_phase(phases.PLAN)

    def open_autotune(self) -> None:
        if self._preprocess_first(("one",), self.open_autotune):
            return
        self._open_phase(phases.AUTOTUNE)

    def open_done(self) -> None:
        if self._preprocess_first(("one", "full"), self.open_done):
            return
        self._open_phase(phases.DONE)

    def open_monitor(self, run_dir: Path) -> None:
        self._open_phase(phases.MONITOR, run_dir)  # a burst of Start presses opens it once

    def open_results(self, run_dir: Path) -> None:
        self._open_phase(phases.RESULTS, run_dir)

    def _preprocess_first(self, steps: tuple[Step, ...], then: Callable[[], None]) -> bool:
        """A run planned from a dataset file: its pending preprocessing step comes first (the
        skill's order: one sample before autotune, every clip before training)."""
        from ltx_wizard.core.preprocess.preprocess_state import read_state

        run_dir = self.app.state.run_dir
        try:
            state = read_state(run_dir) if run_dir is not None else None
        except WizardError:
            return False  # a damaged file: the next screen reports what it cannot read
        step = next((s for s in steps if state is not None and not state.done(s)), None)
        if step is None:
            return False
        self._open_phase(phases.PREPROCESS_ONE if step == "one" else phases.PREPROCESS_FULL, step, then)
        return True
