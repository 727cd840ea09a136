"""F1: help for the screen underneath, with Textual's full key list one key away.

Each screen and dialog keeps its help beside it as the class attribute `F1_HELP`: a (title, body)
pair, or a function that builds one where the text comes from the engine's rules (the Probe and
Autotune screens). Not Textual's own `HELP`, which its key panel would show as well.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Markdown, Static

from ltx_wizard.tui.dialogs.once import OnceModal

Help = tuple[str, str]  # (title, body in Markdown)
GENERIC: Help = ("Help", "Ctrl+q quits. Tab moves between controls. The footer lists this screen's keys.")
# Said under every page: the footer leaves ctrl+p out (at 80 columns its room is the screen's keys).
PALETTE_NOTE = (
    "**On every screen.** Ctrl+p opens the command palette: back to a step you passed, plan.md, "
    "config.yaml or run-summary.md in `$EDITOR` (read-only here without one), this screen's actions "
    "that apply now, and Theme (a light one too)."
)


def help_for_class(screen_type: type[Any]) -> Help:
    """The F1 help of a screen or dialog class; GENERIC for one that has none."""
    found = getattr(screen_type, "F1_HELP", None)
    if found is None:
        return GENERIC
    return found() if callable(found) else found


class HelpDialog(OnceModal[None]):
    BINDINGS = [
        Binding("escape,q,f1", "close", "Close"),
        Binding("k", "keys", "All keys"),
    ]

    def __init__(self, screen_type: type[Any], facts: str | None = None, title: str | None = None) -> None:
        super().__init__()
        self.screen_name = screen_type.__name__
        self.title_text, self.body = help_for_class(screen_type)
        if title:  # the phase on screen, where its class serves two (core/base/phases.py)
            self.title_text = title
        if facts:  # what the screen knows of this run, drawn from its records
            self.body += f"\n\n**For this run.** {facts}"
        if not issubclass(screen_type, ModalScreen):  # over a dialog the palette has none of these
            self.body += f"\n\n{PALETTE_NOTE}"

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
