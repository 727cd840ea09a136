"""Ask for the per-GPU memory when the driver does not report it (GB10, MIG in a container)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from rich.text import Text
from textual.widgets import Button, Input, Static

from ltx_wizard.core.base.arguments import parse_count
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.text_safety import clean_text
from ltx_wizard.tui.dialogs.once import OnceModal

MOST_GB = 4096  # as --vram-gb takes it


# This dialog's F1 help (dialogs/help.py shows it).
VRAM_ASK_HELP = (
    "GPU memory unknown",
    """\
Some GPUs do not report their memory (GB10 with unified memory, MIG inside a container).
Type the GB per GPU that training may use; it picks the tier. On the command line this is
`--vram-gb N`. Esc goes back.""",
)


class VramAskDialog(OnceModal["int | None"]):
    """Dismisses the stated GB, or None when the user backs out."""

    F1_HELP = VRAM_ASK_HELP
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, gpu_name: str) -> None:
        super().__init__()
        self.gpu_name = gpu_name

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("GPU memory unknown", classes="dialog-title")
            yield Static(
                f"{self.gpu_name} does not report its memory. How many GB per GPU can training use?",
                classes="dialog-body",
            )
            yield Input(placeholder="GB per GPU, e.g. 48", id="gb", type="integer")
            yield Static("", id="gb-error", classes="field-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Use it (Enter)", id="ok", variant="primary")
                yield Button("Cancel (Esc)", id="cancel")

    def on_mount(self) -> None:
        field = self.query_one("#gb", Input)
        options = getattr(self.app, "options", None)
        field.cursor_blink = options is None or options.cursor_blink
        field.focus()

    def _submit(self) -> None:
        if self.answered:  # Enters after the answer: its widgets may be gone already
            return
        value = self.query_one("#gb", Input).value
        try:  # ASCII digits under a bound, as the command line's counts (core/base/arguments.py)
            gb = parse_count(value, "GB per GPU", most=MOST_GB)
        except UsageError as exc:
            self.query_one("#gb-error", Static).update(
                Text(clean_text(exc.message)) if value.strip() else "enter a number of GB"
            )
            return
        if gb < 1:
            self.query_one("#gb-error", Static).update(
                f"GB per GPU {gb}: give a whole number from 1 to {MOST_GB}"
            )
            return
        self.dismiss(gb)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self._submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "ok":
            self._submit()
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)
