"""F1: help for the screen underneath, with Textual's full key list one key away."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Markdown, Static

from ltx_wizard.tui.dialogs.once import OnceModal
from ltx_wizard.tui.help_text import help_for


class HelpDialog(OnceModal[None]):
    BINDINGS = [
        Binding("escape,q,f1", "close", "Close"),
        Binding("k", "keys", "All keys"),
    ]

    def __init__(self, screen_name: str, facts: str | None = None) -> None:
        super().__init__()
        self.screen_name = screen_name
        self.title_text, self.body = help_for(screen_name)
        if facts:  # what the screen knows of this run, drawn from its records
            self.body += f"\n\n**For this run.** {facts}"

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog help"):
            yield Static(f"Help · {self.title_text}", classes="dialog-title")
            with VerticalScroll(id="help-scroll"):
                yield Markdown(self.body, id="help-body")
            with Horizontal(classes="dialog-buttons"):
                yield Button("All keys (k)", id="keys")
                yield Button("Close (Esc)", id="close", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#help-scroll", VerticalScroll).focus()  # arrow keys scroll the text

    def action_close(self) -> None:
        self.dismiss(None)

    def action_keys(self) -> None:
        # Textual's own panel: every binding of the screen underneath and of the focused widget.
        if self.answered:  # a burst: the panel is opened once
            return
        app = self.app
        self.dismiss(None)
        app.call_after_refresh(app.action_show_help_panel)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_keys() if event.button.id == "keys" else self.action_close()
