"""Pick one of the discovered candidates for a path field."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ltx_wizard.tui.dialogs.once import OnceModal


class PickDialog(OnceModal["str | None"]):
    """Dismisses the chosen path, or None on Esc."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, candidates: list, note: str | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.candidates = candidates
        self.note = note  # discovery was cut short: the list is partial, and says so

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.title_text, classes="dialog-title")
            if self.note:
                yield Static(f"⚠ {self.note[0].upper()}{self.note[1:]}.", id="pick-partial",
                             classes="dialog-hint")
            options = []
            for c in self.candidates:
                label = Text(str(c.path), style="bold" if c.usable else "dim")
                label.append(f"\n  {c.summary}", style="")
                label.append(f"\n  {c.reason}", style="italic")
                options.append(Option(label, id=str(c.path), disabled=not c.usable))
            yield OptionList(*options, id="pick-list")
            yield Static("Enter picks · Esc cancels", classes="dialog-hint")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
