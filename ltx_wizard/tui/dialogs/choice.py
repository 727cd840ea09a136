"""A question with a few answers, each a button and a key: dismisses the chosen key, or None
for Esc (nothing chosen)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Static

from ltx_wizard.tui.dialogs.once import OnceModal


class ChoiceDialog(OnceModal[str | None]):
    BINDINGS = [Binding("escape", "choose(None)", "Cancel")]

    def __init__(self, title: str, question: str, answers: list[tuple[str, str]]) -> None:
        """`answers`: (key, label), the first the default; the key is also the button's id."""
        super().__init__()
        self.title_text, self.question, self.answers = title, question, answers

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.title_text, classes="dialog-title")
            with VerticalScroll(classes="dialog-scroll"):
                yield Static(self.question, classes="dialog-body")
            with Horizontal(classes="dialog-buttons"):
                for key, label in self.answers:
                    yield Button(f"{label} ({key})", id=f"answer-{key}")
                yield Button("Cancel (esc)", id="answer-cancel")

    def on_mount(self) -> None:
        self.query_one(f"#answer-{self.answers[0][0]}", Button).focus()

    def on_key(self, event) -> None:
        if any(event.key == key for key, _ in self.answers):
            event.stop()
            self.action_choose(event.key)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        key = (event.button.id or "").removeprefix("answer-")
        self.action_choose(None if key == "cancel" else key)

    def action_choose(self, key: str | None) -> None:
        self.dismiss(key)
