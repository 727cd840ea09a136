"""A config change shown as its diff before it is written: True only for an explicit yes."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from ltx_wizard.core.base.text_safety import clean_text


def diff_text(diff: str) -> Text:
    """A unified diff coloured by line kind (and readable without colour: the +/- stay)."""
    text = Text()
    for line in diff.splitlines():
        style = "green" if line.startswith("+") else "red" if line.startswith("-") else "dim"
        text.append(clean_text(line) + "\n", style=style)
    return text


class ConfigChangeDialog(ModalScreen[bool]):
    BINDINGS = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, title: str, sentence: str, diff: str, *, yes: str = "Apply") -> None:
        super().__init__()
        self.title_text, self.sentence, self.diff, self.yes_label = title, sentence, diff, yes

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog config-change"):
            yield Static(self.title_text, classes="dialog-title")
            with VerticalScroll(classes="dialog-scroll"):  # long text scrolls; buttons stay
                yield Static(Text(clean_text(self.sentence)), classes="dialog-body")
                yield Static(diff_text(self.diff), id="diff")
            with Horizontal(classes="dialog-buttons"):
                yield Button(f"{self.yes_label} (y)", id="yes", variant="warning")
                yield Button("Not now (n)", id="no", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()  # checkpoints are precious: no is the default

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)
