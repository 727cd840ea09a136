"""After the probe: what does the user want the model to learn? One question in plain words
(core/setup/intent.py, the trainer team's mode selector), one follow-up where the answer is
ambiguous, the mode stated for confirmation, and the shipped config it maps to handed to the Paths
screen (`state.request.recipe`), whose Recipe list stays for those who know.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Header, Input, OptionList, Static
from textual.widgets.option_list import Option

from ltx_wizard.core.base import phases
from ltx_wizard.core.setup.intent import (
    ANSWERS,
    QUESTION,
    Choice,
    follow_up,
    match_answer,
    missing_recipe,
    statement,
)
from ltx_wizard.tui.widgets.footer import Footer
from ltx_wizard.tui.widgets.steps import StepBar
from ltx_wizard.tui.wizard_screen import WizardScreen

EXAMPLES = (
    'Pick one (↑↓ Enter), or say it in your own words below, e.g. "a LoRA of my '
    'product\'s look", "extend a video", "add sound to a silent video".'
)


# This screen's F1 help (dialogs/help.py shows it): what it does and what comes next.
INTENT_HELP = (
    phases.INTENT.f1_title,
    """\
**What it does.** Maps what you want, in plain words, to one of the trainer's shipped configs
(the trainer team's mode selector). Pick an answer, or type your own words and press Enter.

**A style, character or concept LoRA** asks how you will use it: from text alone (`t2v_lora`),
from a starting image, or both / not sure (`i2v_lora`: its first-frame condition at probability
0.5 learns image-to-video and text-to-video in one run).

**One follow-up** where the answer is ambiguous (forward or backward, video or audio...).

**Next.** Confirm (ctrl+n) states the mode and goes on: to preparing your clips when no data
is given yet, else to the paths, whose Recipe list can still change it; Skip (ctrl+s) keeps the
Recipe list's default. Back (Esc): the screen before.""",
)


class IntentScreen(WizardScreen):
    PHASE = phases.INTENT
    F1_HELP = INTENT_HELP
    CSS_PATH = "intent.tcss"
    BINDINGS = [
        Binding("ctrl+n", "next", "Confirm"),
        Binding("ctrl+s", "skip", "Skip: I know my recipe"),
        Binding("escape", "back", "Back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.answer: Choice | None = None
        self.chosen: Choice | None = None  # the answer, or its follow-up's choice
        self._names: list[str] | None = None  # the checkout's recipes, read once

    def compose(self) -> ComposeResult:
        yield Header()
        yield StepBar(self.phase, id="steps")
        with VerticalScroll(id="body"):
            yield Static(Text(QUESTION, style="bold"), id="intent-question")
            yield Static(EXAMPLES, id="intent-examples")
            yield OptionList(*[Option(c.label, id=c.key) for c in ANSWERS], id="answers")
            yield Input(placeholder="…or type what you want the model to learn, then Enter", id="intent-text")
            yield Static("", id="follow-up-question")
            yield OptionList(id="follow-up")
            yield Static("", id="intent-mode")
        with Horizontal(classes="actions"):
            yield Button("Confirm", id="confirm", variant="primary", disabled=True)
            yield Button("Skip", id="skip")
            yield Button("Back", id="back")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#follow-up", OptionList).display = False
        self.query_one("#answers", OptionList).focus()

    # ----- answers ---------------------------------------------------------------------------
    @on(OptionList.OptionSelected, "#answers")
    def _answered(self, event: OptionList.OptionSelected) -> None:
        self.pick(next(c for c in ANSWERS if c.key == event.option.id))

    @on(Input.Submitted, "#intent-text")
    def _typed(self, event: Input.Submitted) -> None:
        choice = match_answer(event.value)
        if choice is None:
            self.notify(
                "No shipped config matches that: pick the closest answer from the list, "
                "or Skip and choose a recipe yourself on the next screen.",
                severity="warning",
                timeout=10,
            )
            return
        answers = self.query_one("#answers", OptionList)
        answers.highlighted = next(i for i, c in enumerate(ANSWERS) if c.key == choice.key)
        self.pick(choice)

    def pick(self, choice: Choice) -> None:
        self.answer = choice
        question = follow_up(choice)
        box = self.query_one("#follow-up", OptionList)
        box.clear_options()
        if question is None:
            box.display = False
            self.query_one("#follow-up-question", Static).update("")
            self._decide(choice)
            return
        self.query_one("#follow-up-question", Static).update(Text(question.question, style="bold"))
        box.add_options([Option(c.label, id=c.key) for c in question.choices])
        box.display = True
        box.highlighted = 0
        box.focus()
        self._decide(question.choices[0])  # the default, until another is picked

    @on(OptionList.OptionHighlighted, "#follow-up")
    @on(OptionList.OptionSelected, "#follow-up")
    def _followed(self, event) -> None:
        question = follow_up(self.answer) if self.answer is not None else None
        if question is not None and event.option.id is not None:
            self._decide(next(c for c in question.choices if c.key == event.option.id))
            if isinstance(event, OptionList.OptionSelected):
                self.query_one("#confirm", Button).focus()

    def _decide(self, choice: Choice) -> None:
        self.chosen = choice
        assert choice.recipe is not None
        text = Text()
        text.append("Got it: ", style="bold")
        text.append(statement(choice.recipe, choice.video_only))
        missing = missing_recipe(choice.recipe, self._offered())
        if missing:
            text.append(f"\n! {missing}", style="bold")
        text.append("\nConfirm (ctrl+n) if that is right; the next screen's Recipe list can still change it.")
        mode = self.query_one("#intent-mode", Static)
        mode.update(text)
        self.query_one("#confirm", Button).disabled = False
        self.call_after_refresh(mode.scroll_visible, animate=False)

    def _offered(self) -> list[str]:
        """The checkout's shipped configs, when the checkout is already known (read once)."""
        if self._names is None:
            root = self.app.state.request.trainer_root or self.app.options.trainer_root
            self._names = []
            if root:
                from pathlib import Path

                from ltx_wizard.core.inputs.recipes import list_recipes

                configs = Path(root).expanduser() / "packages" / "ltx-trainer" / "configs"
                self._names = [r.name for r in list_recipes(configs)]
        return self._names

    # ----- navigation ------------------------------------------------------------------------
    def action_next(self) -> None:
        chosen = self.chosen
        if chosen is None or chosen.recipe is None:
            self.notify("Pick what you want the model to learn first (or Skip).", severity="warning")
            return
        state = self.app.state
        state.edit_request(recipe=chosen.recipe, video_only=chosen.video_only or state.request.video_only)
        self.app.nav.open_data_step()

    def action_skip(self) -> None:
        self.app.nav.open_data_step()

    def action_back(self) -> None:
        self.leave()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if not self.is_current:  # a burst's late press: this screen is no longer on top
            return
        {"confirm": self.action_next, "skip": self.action_skip, "back": self.action_back}[
            event.button.id or "back"
        ]()
