"""A yes/no question: dismisses True for yes, False for no or Esc."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Static

from ltx_wizard.tui.dialogs.once import OnceModal


# This dialog's F1 help (dialogs/help.py shows it).
CONFIRM_HELP = ("A question", "Yes (y); No (n or Esc), the safe default.")


class ConfirmDialog(OnceModal[bool]):
    F1_HELP = CONFIRM_HELP
    BINDINGS = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, question: str, *, yes: str = "Yes", no: str = "No", title: str = "Confirm") -> None:
        super().__init__()
        self.question = question
        self.yes_label = yes
        self.no_label = no
        self.title_text = title

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.title_text, classes="dialog-title")
            with VerticalScroll(classes="dialog-scroll"):  # long text scrolls; buttons stay
                yield Static(self.question, classes="dialog-body")
            with Horizontal(classes="dialog-buttons"):
                yield Button(f"{self.yes_label} (y)", id="yes", variant="warning")
                yield Button(f"{self.no_label} (n)", id="no", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()  # the safe answer is the default

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)
