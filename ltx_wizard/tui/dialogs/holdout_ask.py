"""A small dataset's held-out set (the skill asks, never decides): reserve 1, 2, or skip."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static

from ltx_wizard.tui.dialogs.once import OnceModal


# This dialog's F1 help (dialogs/help.py shows it).
HOLDOUT_HELP = (
    "Held-out samples",
    """\
A few samples kept out of training so the evaluation after it can test clips the model never
saw. With tens of samples each one matters: Reserve 1 (1) or Reserve 2 (2) keeps that
many aside; Skip (0 or Esc) keeps none (the evaluation then only shows in-distribution prompts).""",
)


class HoldoutDialog(OnceModal[int]):
    F1_HELP = HOLDOUT_HELP
    BINDINGS = [
        Binding("1", "answer(1)", "Reserve 1"),
        Binding("2", "answer(2)", "Reserve 2"),
        Binding("0,escape", "answer(0)", "Skip"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("Held-out samples", classes="dialog-title")
            yield Static(self.question, classes="dialog-body", id="holdout-question")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Skip (0)", id="h0")
                yield Button("Reserve 2 (2)", id="h2")
                yield Button("Reserve 1 (1)", id="h1", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#h1", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(int((event.button.id or "h0")[1:]))

    def action_answer(self, value: int) -> None:
        self.dismiss(value)
