"""A run file read here, read-only: what the palette's Open shows when $EDITOR is unset (or the
terminal cannot be handed to an editor). The text is selectable and scrolls; Esc or q closes it."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static, TextArea

from ltx_wizard.tui.dialogs.once import OnceModal

# This dialog's F1 help (dialogs/help.py shows it).
FILE_VIEW_HELP = (
    "A run file, read-only",
    "The file as it is on disk; nothing here writes. Set $EDITOR to open it in your editor "
    "instead. Arrows and PageUp/PageDown scroll; select text with the mouse. Close (q or Esc).",
)


class FileViewDialog(OnceModal[None]):
    F1_HELP = FILE_VIEW_HELP
    BINDINGS = [Binding("escape,q", "close", "Close")]

    def __init__(self, path: Path, text: str, note: str = "") -> None:
        super().__init__()
        self.path = path
        self.text = text
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog file-view"):
            title = f"{self.path} (read-only)" + (f"\n{self.note}" if self.note else "")
            yield Static(title, classes="dialog-title", markup=False)
            yield TextArea(self.text, read_only=True, show_line_numbers=False, id="file-text")

    def on_mount(self) -> None:
        self.query_one("#file-text", TextArea).focus()

    def action_close(self) -> None:
        self.dismiss(None)
