"""The evaluation's prompts, one category per box and one prompt per line: the user's edit
replaces the category's prompts (ctrl+s keeps it, Esc leaves them as they were)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from rich.text import Text
from textual.widgets import Button, Static, TextArea

from ltx_wizard.core.base.arguments import check_text
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.text_safety import clean_text
from ltx_wizard.core.evaluation.prompts import CATEGORIES, TITLES, PromptSet
from ltx_wizard.tui.dialogs.once import OnceModal


class EvalPromptsDialog(OnceModal[dict[str, list[str]] | None]):
    DEFAULT_CSS = "#eval-prompts { width: 100; } .eval-prompts-box { height: 6; }"
    BINDINGS = [Binding("ctrl+s", "keep", "Keep"), Binding("escape", "drop", "Cancel")]

    def __init__(self, prompts: PromptSet) -> None:
        super().__init__()
        self.prompts = prompts

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog", id="eval-prompts"):
            yield Static("Evaluation prompts (one per line)", classes="dialog-title")
            for category in CATEGORIES:
                yield Static(TITLES[category], classes="field-label")
                text = "\n".join(p.text for p in self.prompts.of(category))
                yield TextArea(
                    text,
                    id=f"prompts-{category}",
                    classes="eval-prompts-box",
                    soft_wrap=True,
                    show_line_numbers=False,
                )
            yield Static("", id="prompts-error", classes="field-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Keep (ctrl+s)", id="keep", variant="primary")
                yield Button("Cancel (esc)", id="drop")

    def action_keep(self) -> None:
        found = {c: self.query_one(f"#prompts-{c}", TextArea).text.splitlines() for c in CATEGORIES}
        try:  # as `eval --prompt` is checked (core/base/arguments.py): a prompt is written to a file
            for category, lines in found.items():
                for number, line in enumerate(lines, 1):
                    check_text(line, f"{TITLES[category]}, line {number}:")
        except UsageError as exc:
            # the message quotes the prompt: as text, never read as markup (`[/]` would raise)
            self.query_one("#prompts-error", Static).update(Text(clean_text(exc.message)))
            return
        self.dismiss(found)

    def action_drop(self) -> None:
        self.dismiss(None)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.action_keep() if event.button.id == "keep" else self.action_drop()
