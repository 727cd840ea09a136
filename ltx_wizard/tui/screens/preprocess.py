"""The trainer's preprocessing of a run planned from a dataset file, one step at a time, live.

Step "one" encodes the first usable clip into <run>/overfit/.precomputed before autotune (a
quick check at the planned bucket: an out-of-memory or config error shows in minutes, not after
hours of encoding); step "full" encodes every clip into the data root after it. The script runs
as an asyncio subprocess in a worker (the event loop never waits on it); its bars drive the
progress bar and the ETA, its log lines the tail below.
"""

from __future__ import annotations

import asyncio

from typing import Callable

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Header, ProgressBar, Static

from ltx_wizard.tui.widgets.footer import Footer
from ltx_wizard.tui.widgets.steps import StepBar
from ltx_wizard.tui.wizard_screen import WizardScreen

ABOUT = {
    "one": "Before autotune, one clip is encoded at your planned bucket into "
    "overfit/.precomputed: autotune's trials train on it, so an out-of-memory or config "
    "error shows in minutes instead of after the whole dataset is encoded.",
    "full": "Now every clip is encoded into the latents the trainer reads (a one-time step; "
    "the trained model never sees the raw videos). This can take a while: the bar "
    "shows the script's own progress and an estimate once it has a rate.",
}
TITLES = {"one": "Preprocess one sample", "full": "Preprocess the dataset"}


# This screen's F1 help (dialogs/help.py shows it): what it does and what comes next.
PREPROCESS_HELP = (
    "Preprocessing your clips",
    """\
**What it does.** Runs the trainer's `scripts/process_dataset.py` with the arguments the plan
decided (checkpoint, Gemma, VAEs, bucket, trigger word), and checks what it wrote.

**The order** (the trainer team's skill): one clip first, into `<run>/overfit/.precomputed`, so
autotune's trials run at your bucket in minutes; then, after autotune, every clip into the data
root. A step already done is not run again; an interrupted one resumes (the script skips what it
wrote). An existing data root is never overwritten.

**Keys.** r retries a failed step; Esc goes back (not while the script runs).""",
)


class PreprocessScreen(WizardScreen):
    F1_HELP = PREPROCESS_HELP
    BINDINGS = [
        Binding("r", "retry", "Retry"),
        Binding("escape", "back", "Back"),
    ]

    def __init__(self, step: str, then: Callable[[], None]) -> None:
        super().__init__()
        self.step = step
        self.then = then
        self.running = False

    def compose(self) -> ComposeResult:
        yield Header()
        yield StepBar(4 if self.step == "one" else 5, id="steps")
        with VerticalScroll(id="body"):
            yield Static(Text(TITLES[self.step], style="bold"), id="pp-title")
            yield Static(ABOUT[self.step], id="pp-about")
            with Horizontal(id="pp-progress-row"):
                yield ProgressBar(total=None, show_eta=False, id="pp-progress")
            yield Static("starting (loading the models)", id="pp-status")
            yield Static("", id="pp-log")
        with Horizontal(classes="actions"):
            yield Button("Retry", id="retry", disabled=True)
            yield Button("Back", id="back")
        yield Footer()

    def on_mount(self) -> None:
        self._start()

    def _start(self) -> None:
        self.running = True
        self.query_one("#retry", Button).disabled = True
        self._run()

    @work(exclusive=True, exit_on_error=False, group="preprocess")
    async def _run(self) -> None:
        from ltx_wizard.core.base.errors import WizardError
        from ltx_wizard.core.preprocess.steps import run_step
        from ltx_wizard.demo.sim.stand_in import SimulatedTrainer

        try:
            result = await run_step(
                self.app.state.run_dir,
                self.step,  # type: ignore[arg-type]  # run_dir: set before this screen opens
                on_progress=self._progress,
                # used only where preprocess.json says the plan's GPUs were simulated
                stand_in=SimulatedTrainer(self.app.simulate or "h100"),
                # the full step opens from the Done step: after autotune, or the user's Approve, skip
                skip_autotune=True,
            )
        except WizardError as exc:
            self._failed(exc.message)
            return
        except OSError as exc:
            self._failed(f"the preprocessing could not run: {exc}")
            return
        self.running = False
        if result.warnings:
            self.notify("; ".join(result.warnings)[:300], severity="warning", timeout=10)
        from ltx_wizard.core.plan.refresh import refresh_plan_md

        # plan.md's Dataset section from the records: how far the preprocessing has got
        problem = await asyncio.to_thread(refresh_plan_md, self.app.state.run_dir)
        if problem is not None:
            self.notify(problem, severity="warning", timeout=10)
        self.call_after_refresh(self.then)  # once this screen is drawn: a fast step still shows

    def _progress(self, parser) -> None:
        phase = parser.current
        if phase is not None:
            self.query_one("#pp-progress", ProgressBar).update(total=phase.total, progress=phase.done)
        self.query_one("#pp-status", Static).update(parser.line())
        if parser.skipped:
            shown = "; ".join(f"skipped {p} ({n} frames)" for p, n in parser.skipped[-5:])
            self.query_one("#pp-log", Static).update(shown)

    def _failed(self, message: str) -> None:
        self.running = False
        self.query_one("#pp-status", Static).update(
            Text.assemble(
                ("Failed: ", "bold"),
                message,
                "\nr retries (what was written is kept and skipped); Esc goes back.",
            )
        )
        self.query_one("#retry", Button).disabled = False

    def action_retry(self) -> None:
        if not self.running:
            self._start()

    def action_back(self) -> None:
        if not self.running:
            self.app.pop_screen()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "retry":
            self.action_retry()
        else:
            self.action_back()
