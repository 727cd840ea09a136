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

from ltx_wizard.core.base import phases
from ltx_wizard.core.base.text_safety import clean_text
from ltx_wizard.tui.widgets.footer import Footer
from ltx_wizard.tui.widgets.steps import StepBar
from ltx_wizard.tui.wizard_screen import WizardScreen
from ltx_wizard.tui.widgets.formatting import safe_markup

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
    phases.PREPROCESS_FULL.f1_title,
    """\
**What it does.** Runs the trainer's `scripts/process_dataset.py` with the arguments the plan
decided (checkpoint, Gemma, VAEs, bucket, trigger word), and checks what it wrote.

**The order** (the trainer team's skill): one clip first, into `<run>/overfit/.precomputed`, so
autotune's trials run at your bucket in minutes; then, after autotune, every clip into the data
root. A step already done is not run again; an interrupted one resumes (the script skips what it
wrote). An existing data root is never overwritten.

**The audio gate.** Before the first step, one clip with sound is decoded in the trainer's
environment. Where it cannot decode sound (no torchcodec), nothing is encoded: the screen names
the fix (`uv sync` in the checkout), or v trains video only (config.yaml's audio turned off).

**Keys.** Retry (r) runs a failed step again; Video only (v), when the audio gate offers it,
trains video only; Back (Esc) goes back (not while the script runs).""",
)


class PreprocessScreen(WizardScreen):
    PHASE = phases.PREPROCESS_FULL
    F1_HELP = PREPROCESS_HELP
    BINDINGS = [
        Binding("r", "retry", "Retry"),
        Binding("v", "video_only", "Video only", show=False),
        Binding("escape", "back", "Back"),
    ]

    def __init__(self, step: str, then: Callable[[], None]) -> None:
        super().__init__()
        self.step = step
        self.then = then
        self.running = False
        self.video_only = False  # the user's consent, given at the audio gate
        self.can_drop_audio = False  # the audio gate offered video only

    @property
    def phase(self) -> phases.Phase:
        return phases.PREPROCESS_ONE if self.step == "one" else phases.PREPROCESS_FULL

    def compose(self) -> ComposeResult:
        yield Header()
        yield StepBar(self.phase, id="steps")
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
        from ltx_wizard.core.prepare.audio_gate_check import audio_check
        from ltx_wizard.core.base.errors import WizardError
        from ltx_wizard.core.preprocess.audio_gate import AudioGateClosed
        from ltx_wizard.core.preprocess.preprocess_steps import run_step

        run_dir = self.app.state.run_dir
        assert run_dir is not None  # set before this screen opens
        # used only where preprocess.json says the plan's GPUs were simulated
        stand_in = self.app.stand_ins.for_simulated_run()
        try:
            result = await run_step(
                run_dir,
                self.step,  # type: ignore[arg-type]
                on_progress=self._progress,
                stand_in=stand_in,
                # the full step opens from the Done step: after autotune, or the user's Approve, skip
                skip_autotune=True,
                audio_check=await asyncio.to_thread(audio_check, run_dir, stand_in),
                video_only=self.video_only,
            )
        except AudioGateClosed as exc:
            self.can_drop_audio = exc.video_only
            self._failed(exc.message, video_only=exc.video_only)
            return
        except WizardError as exc:
            self._failed(exc.message)
            return
        except OSError as exc:
            self._failed(f"the preprocessing could not run: {exc}")
            return
        self.running = False
        # the outcome of a long action, said wherever the user is when it ends
        self.notify(result.done_text(), title="Preprocessing finished", timeout=8)
        if result.warnings:
            self.notify(safe_markup("; ".join(result.warnings)[:300]), severity="warning", timeout=10)
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
            # the trainer's own output names the samples: cleaned, and never read as markup
            self.query_one("#pp-log", Static).update(Text(clean_text(shown)))

    def _failed(self, message: str, *, video_only: bool = False) -> None:
        self.running = False
        keys = (
            "\nr retries once the fix is done; v trains video only (config.yaml's audio turned "
            "off); Esc goes back."
            if video_only
            else "\nr retries (what was written is kept and skipped); Esc goes back."
        )
        self.query_one("#pp-status", Static).update(Text.assemble(("Failed: ", "bold"), message, keys))
        self.query_one("#retry", Button).disabled = False
        self.notify(message, title="Preprocessing failed", severity="error", timeout=12)

    def action_video_only(self) -> None:
        """The consent the audio gate asks for: video only, then the step again."""
        if not self.running and self.can_drop_audio:
            self.video_only = True
            self.can_drop_audio = False
            self._start()

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
