"""Pick one of the discovered candidates for a path field."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ltx_wizard.core.base.text_safety import clean_text
from ltx_wizard.tui.dialogs.once import OnceModal


# This dialog's F1 help (dialogs/help.py shows it).
PICK_HELP = (
    "Files found on disk",
    """\
Files found in `/models`, `~/models`, `$LTX_MODELS_DIR` and the Hugging Face cache, best first;
dim entries cannot be used (the reason is shown). Enter picks one; picking a checkpoint also
fills its matching Gemma and VAEs. Esc goes back.""",
)


class PickDialog(OnceModal["str | None"]):
    """Dismisses the chosen path, or None on Esc."""

    F1_HELP = PICK_HELP
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
                yield Static(
                    f"⚠ {self.note[0].upper()}{self.note[1:]}.", id="pick-partial", classes="dialog-hint"
                )
            options = []
            for c in self.candidates:
                # a file name on disk and a header's words are foreign: no escape reaches the terminal
                label = Text(clean_text(c.path), style="bold" if c.usable else "dim")
                label.append(f"\n  {clean_text(c.summary)}", style="")
                label.append(f"\n  {clean_text(c.reason)}", style="italic")
                options.append(Option(label, id=str(c.path), disabled=not c.usable))
            yield OptionList(*options, id="pick-list")
            yield Static("Enter picks · Esc cancels", classes="dialog-hint")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
