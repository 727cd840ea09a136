"""The run folder's own files to open (plan.md, config.yaml, run-summary.md, those that exist): key o
on the screens of a run, the footer's way to what the command palette's "Open ..." commands do.
Dismisses the chosen file's path (tui/run_file_open.py opens it), or None."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static

from ltx_wizard.tui.dialogs.once import OnceModal

# This dialog's F1 help (dialogs/help.py shows it).
RUN_FILES_HELP = (
    "Open a run file",
    "The run folder's plan.md, config.yaml and run-summary.md, those that exist: its number (1, 2, 3) "
    "or Enter on its button opens it in $VISUAL or $EDITOR (the wizard steps aside meanwhile), else "
    "read-only here; Esc closes. Ctrl+p offers the same.",
)


class RunFilesDialog(OnceModal["Path | None"]):
    F1_HELP = RUN_FILES_HELP
    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("1", "pick(0)", show=False),
        Binding("2", "pick(1)", show=False),
        Binding("3", "pick(2)", show=False),
    ]

    def __init__(self, paths: list[Path]) -> None:
        super().__init__()
        self.paths = paths

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("Open a run file", classes="dialog-title")
            yield Static(str(self.paths[0].parent) if self.paths else "", classes="dialog-body")
            with Horizontal(classes="dialog-buttons"):
                for i, path in enumerate(self.paths):
                    yield Button(f"{path.name} ({i + 1})", id=f"file-{i}")

    def on_mount(self) -> None:
        if self.paths:
            self.query_one("#file-0", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_pick(int((event.button.id or "file-0").removeprefix("file-")))

    def action_pick(self, index: int) -> None:
        if index < len(self.paths):
            self.dismiss(self.paths[index])

    def action_close(self) -> None:
        self.dismiss(None)
