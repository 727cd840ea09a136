"""After the probe, when something the trainer needs is missing: the setup offers of
core/setup/survey.py, one at a time (what it does, its commands, its size), each run only after a
yes, with its progress and the tail of its output; the whole output in the setup log.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widgets import Button, Header, ProgressBar, Static

from ltx_wizard.core.base import phases
from ltx_wizard.tui.widgets.footer import Footer
from ltx_wizard.tui.widgets.steps import StepBar
from ltx_wizard.tui.widgets.tail_log import TailLog
from ltx_wizard.tui.wizard_screen import WizardScreen
from ltx_wizard.core.base.text_safety import clean_text

if TYPE_CHECKING:
    from ltx_wizard.core.setup.survey import Survey


@dataclass
class Surveyed(Message):
    survey: Any
    error: str | None


@dataclass
class StepOutput(Message):
    phase: str
    fraction: float | None
    line: str


@dataclass
class OfferDone(Message):
    outcome: Any


# This screen's F1 help (dialogs/help.py shows it): what it does and what comes next.
SETUP_HELP = (
    phases.SETUP.f1_title,
    """\
**What it does.** Shown after the probe when something the trainer needs is missing: uv, the
LTX-2 checkout, its environment (`uv sync`), or an update (`git pull`) of a checkout from before
2026-06-17, whose trainer configs still have their old names.

**Each offer** says what it will do, the commands it runs and how big it is; it runs only when
you answer Yes, do it (y); Skip it (n) leaves it. uv is installed with pip into the wizard's own environment and used
by its path: no shell pipe, no new shell, no shell rc file or system setting changed. An
existing checkout is only touched by an offer you accept.

**While it runs** the progress and the last lines show; the whole output is in the setup log
named at the end. Esc stops a running step.

The clone comes from GitHub (https://github.com/Lightricks/LTX-2) unless the wizard was started
with `--trainer-repo URL` (a mirror, or a local git repository), as `ltx-wizard setup` takes it.

**Next.** Continue (ctrl+n): what you want the model to learn. `ltx-wizard setup` offers the
same on the command line (`--yes` for scripts).""",
)


class SetupScreen(WizardScreen):
    PHASE = phases.SETUP
    F1_HELP = SETUP_HELP
    CSS_PATH = "setup.tcss"
    BINDINGS = [
        Binding("y", "yes", "Yes, do it"),
        Binding("n", "no", "Skip it"),
        Binding("ctrl+n", "next", "Continue"),
        Binding("escape", "back", "Back"),
    ]

    def __init__(self, then=None) -> None:
        super().__init__()
        self.then = then  # what Continue opens (default: the intent question)
        self.survey: Survey | None = None
        self.index = 0
        self.outcomes: list = []
        self.running = False
        self._cancel = threading.Event()
        self.log_file: Path | None = None  # set on mount: one setup log per visit

    def compose(self) -> ComposeResult:
        yield Header()
        yield StepBar(self.phase, id="steps")
        with VerticalScroll(id="body"):
            yield Static("Checking what the trainer needs…", id="setup-found")
            yield Static("", id="setup-offer")
            yield ProgressBar(id="setup-progress", show_eta=False)
            yield Static("", id="setup-status")
            yield TailLog(id="setup-log", max_lines=200)
        with Horizontal(classes="actions"):
            yield Button("Yes, do it (y)", id="yes", variant="primary", disabled=True)
            yield Button("Skip it (n)", id="no", disabled=True)
            yield Button("Continue", id="continue", disabled=True)
        yield Footer()

    def on_mount(self) -> None:
        from ltx_wizard.core.setup.offer_session import log_path

        self.log_file = log_path()
        self.query_one("#setup-progress").display = False
        self.query_one("#setup-log").display = False
        self._survey()

    @work(thread=True, exclusive=True, exit_on_error=False, group="setup")
    def _survey(self) -> None:
        from ltx_wizard.core.setup.survey import TRAINER_REPO, survey

        root = self.app.state.request.trainer_root or self.app.options.trainer_root or None
        repo = self.app.options.trainer_repo or TRAINER_REPO  # `ltx-wizard --trainer-repo URL`
        try:
            keywords = {"repo": repo, **self.app.options.setup_survey}  # tests may name their own
            self.post_message(Surveyed(survey(root, **keywords), None))
        except Exception as exc:  # noqa: BLE001 - shown, never raised into the UI
            self.post_message(Surveyed(None, f"{type(exc).__name__}: {exc}"))

    @on(Surveyed)
    def _surveyed(self, message: Surveyed) -> None:
        if message.error is not None:
            self.query_one("#setup-found", Static).update(f"Could not check: {clean_text(message.error)}")
            self.query_one("#continue", Button).disabled = False
            return
        self.survey = message.survey
        found = Text()
        for note in message.survey.notes:
            found.append("• ", style="bold")
            found.append(note + "\n")
        self.query_one("#setup-found", Static).update(found)
        if not message.survey.offers:  # nothing is missing: no question to ask
            self._finished()
            self.action_next()
            return
        self._show_offer()

    def _show_offer(self) -> None:
        from ltx_wizard.core.setup.offer_session import Outcome, skip_reason

        offers = self.survey.offers if self.survey is not None else ()
        while self.index < len(offers):
            reason = skip_reason(offers[self.index], self.outcomes)
            if reason is None:
                break
            self.outcomes.append(Outcome(key=offers[self.index].key, status="skipped", detail=reason))
            self.index += 1
        if self.index >= len(offers):
            self._finished()
            return
        offer = offers[self.index]
        text = Text()
        text.append(f"{offer.title}  ({self.index + 1} of {len(offers)})\n", style="bold")
        text.append(f"What: {offer.does}\nSize: {offer.size_now()}\n")
        for line in offer.commands():
            text.append(f"Runs: {line}\n", style="dim")
        text.append("Do it?", style="bold")
        self.query_one("#setup-offer", Static).update(text)
        for name in ("yes", "no"):
            self.query_one(f"#{name}", Button).disabled = False
        self.query_one("#yes", Button).focus()

    def _finished(self) -> None:
        from ltx_wizard.core.setup.offer_session import headline

        lines = [f"{o.key}: {o.status}" + (f" ({o.detail})" if o.detail else "") for o in self.outcomes]
        text = Text(headline(self.outcomes) + "\n", style="bold")
        text.append("\n".join(lines))
        if self.outcomes:
            text.append(f"\nSetup log: {self.log_file}")
        self.query_one("#setup-offer", Static).update(text)
        for name in ("yes", "no"):
            self.query_one(f"#{name}", Button).disabled = True
        button = self.query_one("#continue", Button)
        button.disabled = False
        button.focus()
        done = {o.key for o in self.outcomes if o.status == "done"}
        if self.survey is not None and (
            self.survey.checkout == "present"
            or "clone" in done
            or "finish-clone" in done  # an interrupted clone, finished
            or (self.survey.checkout == "old" and "pull" in done)  # brought up to date
        ):
            self.app.state.edit_request(trainer_root=self.survey.root)

    # ----- running an offer ------------------------------------------------------------------
    def action_yes(self) -> None:
        if self.running or self.survey is None or self.index >= len(self.survey.offers):
            return
        self.running = True
        for name in ("yes", "no"):
            self.query_one(f"#{name}", Button).disabled = True
        self.query_one("#setup-progress").display = True
        self.query_one("#setup-log").display = True
        self._run(self.survey.offers[self.index])

    def action_no(self) -> None:
        if self.running or self.survey is None or self.index >= len(self.survey.offers):
            return
        from ltx_wizard.core.setup.offer_session import Outcome

        self.outcomes.append(Outcome(key=self.survey.offers[self.index].key, status="declined"))
        self.index += 1
        self._show_offer()

    @work(thread=True, exclusive=True, exit_on_error=False, group="setup-run")
    def _run(self, offer) -> None:
        from ltx_wizard.core.setup.offer_session import run_offer

        def on_line(progress, line: str) -> None:
            self.post_message(StepOutput(progress.line(), progress.fraction, line))

        outcome = run_offer(offer, self.log_file, on_line=on_line, cancelled=self._cancel.is_set)
        self.post_message(OfferDone(outcome))

    @on(StepOutput)
    def _output(self, message: StepOutput) -> None:
        bar = self.query_one("#setup-progress", ProgressBar)
        bar.update(
            total=100 if message.fraction is not None else None, progress=(message.fraction or 0) * 100
        )
        self.query_one("#setup-status", Static).update(clean_text(message.phase))
        self.query_one("#setup-log", TailLog).write_tail([message.line])

    @on(OfferDone)
    def _offer_done(self, message: OfferDone) -> None:
        self.running = False
        self.outcomes.append(message.outcome)
        self.query_one("#setup-status", Static).update(
            f"{message.outcome.key}: {message.outcome.status}. {clean_text(message.outcome.detail)}"
        )
        self.index += 1
        self._show_offer()

    # ----- navigation ------------------------------------------------------------------------
    def action_next(self) -> None:
        if self.query_one("#continue", Button).disabled:
            return
        self.app.pop_screen()
        if self.then is not None:
            self.then()

    def action_back(self) -> None:
        if self.running:
            self._cancel.set()  # the step's process group is stopped; its outcome follows
            return
        self.leave()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if not self.is_current:
            return
        {"yes": self.action_yes, "no": self.action_no, "continue": self.action_next}[
            event.button.id or "continue"
        ]()
