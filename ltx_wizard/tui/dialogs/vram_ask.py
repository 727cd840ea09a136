"""Ask for the per-GPU memory when the driver does not report it (GB10, MIG in a container)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.validation import Integer
from textual.widgets import Button, Input, Static

from ltx_wizard.tui.dialogs.once import OnceModal


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
            yield Input(
                placeholder="GB per GPU, e.g. 48",
                id="gb",
                type="integer",
                validators=[
                    Integer(minimum=1, maximum=4096, failure_description="a whole number of GB, 1 to 4096")
                ],
            )
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
        field = self.query_one("#gb", Input)
        result = field.validate(field.value)
        if field.value and result is not None and result.is_valid:
            self.dismiss(int(field.value))
            return
        reason = "; ".join(result.failure_descriptions) if result else "enter a number of GB"
        self.query_one("#gb-error", Static).update(reason or "enter a number of GB")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self._submit()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "ok":
            self._submit()
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)
