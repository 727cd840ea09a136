"""A config change shown as its diff before it is written: True only for an explicit yes.

The sentence (what the change means) and the diff scroll together in a region sized to the
terminal, so the buttons stay visible at 80x24 however long either is.
"""

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


# This dialog's F1 help (dialogs/help.py shows it).
CONFIG_CHANGE_HELP = (
    "A change to config.yaml",
    """\
The diff shows exactly what would change in `config.yaml` (lines with - go, lines with + come).
Yes (y) writes it (the previous file is kept beside it); No (n or Esc) leaves everything as it is. Starting
the run again is a question of its own.""",
)


class ConfigChangeDialog(ModalScreen[bool]):
    F1_HELP = CONFIG_CHANGE_HELP
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
            # the sentence and the diff scroll together: the buttons stay on screen at 80x24
            with VerticalScroll(id="diff"):
                yield Static(Text(clean_text(self.sentence)), classes="dialog-body")
                yield Static(diff_text(self.diff))
            with Horizontal(classes="dialog-buttons"):
                yield Button(f"{self.yes_label} (y)", id="yes", variant="warning")
                yield Button("Not now (n)", id="no", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()  # checkpoints are precious: no is the default
        # A region of auto height counts its whole content in the dialog's height (the dialog
        # then fills the screen below its buttons): long content gets the capped height itself.
        width = 64  # the dialog's text width at its narrowest (72 columns less border, padding)
        lines = sum(max(1, -(-len(line) // width)) for line in self.sentence.splitlines())
        if lines + 1 + len(self.diff.splitlines()) > 10:
            self.query_one("#diff", VerticalScroll).styles.height = "45vh"

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)
