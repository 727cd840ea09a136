"""The caption spot check (the skill's hard gate): three captions in full, then Approve, a new
instruction to caption the same three with, or Stop. Dismisses True, the instruction, or False."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Input, Static

from ltx_wizard.core.base.arguments import check_text
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.text_safety import clean_block, clean_text
from ltx_wizard.tui.dialogs.once import OnceModal
from ltx_wizard.tui.widgets.formatting import safe_markup


# This dialog's F1 help (dialogs/help.py shows it).
SPOT_CHECK_HELP = (
    "The caption spot check",
    """\
Three captions from the captioner's default prompt, in full, before the other clips are
captioned. Approve (a) captions the rest the same way; New instruction (i) asks what to change
and captions the same three again with it; Stop (Esc): no clip beyond these three is captioned
(the stop says how many of the three were). Shown only when the captioner captioned at least one
of them.""",
)


class SpotCheckDialog(OnceModal["bool | str"]):
    F1_HELP = SPOT_CHECK_HELP
    DEFAULT_CSS = """
    SpotCheckDialog .dialog { width: 100; height: 90%; }
    SpotCheckDialog #spot-captions { height: 1fr; border: round $primary-darken-2; }
    SpotCheckDialog .spot-clip { text-style: bold; margin-top: 1; }
    SpotCheckDialog #spot-instruction { display: none; }
    SpotCheckDialog #spot-instruction.-asking { display: block; }
    """
    BINDINGS = [
        Binding("a", "approve", "Approve"),
        Binding("i", "instruct", "New instruction"),
        Binding("escape", "stop", "Stop"),
    ]

    def __init__(self, shown: list[tuple[str, str]]) -> None:
        super().__init__()
        self.shown = shown

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("Spot check: 3 captions before the full pass", classes="dialog-title")
            yield Static(
                "The captioner's default prompt wrote these, in full. Approve to caption "
                "the rest the same way; or give an instruction (say what to change) to "
                "caption these three again with it; or stop.",
                classes="dialog-hint",
            )
            with VerticalScroll(id="spot-captions"):
                for clip, caption in self.shown:  # the captioner's answer: foreign text
                    yield Static(Text(clean_text(clip)), classes="spot-clip")
                    yield Static(Text(clean_block(caption)), classes="spot-caption")
            yield Input(
                placeholder="what to change, e.g. less about the background; Enter captions the three again",
                id="spot-instruction",
                compact=True,
            )
            with Horizontal(classes="dialog-buttons"):
                yield Button("Stop (Esc)", id="stop")
                yield Button("New instruction (i)", id="instruct")
                yield Button("Approve (a)", id="approve", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#spot-captions").focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        {"approve": self.action_approve, "instruct": self.action_instruct, "stop": self.action_stop}[
            event.button.id or "stop"
        ]()

    def action_approve(self) -> None:
        if not self.query_one("#spot-instruction", Input).has_focus:
            self.dismiss(True)

    def action_instruct(self) -> None:
        field = self.query_one("#spot-instruction", Input)
        if field.has_focus:
            return
        field.add_class("-asking")
        field.focus()

    def action_stop(self) -> None:
        self.dismiss(False)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        try:  # the instruction goes to the captioner's command line: UTF-8, as --instruction is
            check_text(text, "the instruction")
        except UsageError as exc:
            self.notify(safe_markup(exc.message), severity="error")
            return
        if text:
            self.dismiss(text)
