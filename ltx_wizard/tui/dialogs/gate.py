"""The minimum-VRAM gate: the seed's message, Abort (exit code 3) or Try anyway (at your own risk)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static

from ltx_wizard.tui.dialogs.once import OnceModal


# This dialog's F1 help (dialogs/help.py shows it).
GATE_HELP = (
    "Below the 32 GB minimum",
    """\
The trainer's authors ship no config tested below 32 GB per GPU.

- *Abort* (a or Esc): leaves the wizard with exit code 3; nothing is written.
- *Try anyway* (t): plans with the low-VRAM config, marked "at your own risk" in `plan.md`.
  Autotune's baseline will show quickly whether it fits.

On the command line the same choice is `--accept-risk`.""",
)


class GateDialog(OnceModal[bool]):
    """Dismisses True to go on with the low-VRAM config, False to abort."""

    F1_HELP = GATE_HELP
    BINDINGS = [
        Binding("a,escape", "answer(False)", "Abort"),
        Binding("t", "answer(True)", "Try anyway"),
    ]

    def __init__(self, message: str) -> None:
        super().__init__()
        self.message = message

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog gate"):
            yield Static("Below the 32 GB minimum", classes="dialog-title")
            yield Static(self.message, classes="dialog-body", id="gate-message")
            yield Static(
                'Try anyway marks the plan "at your own risk" and uses the low-VRAM config.',
                classes="dialog-hint",
            )
            with Horizontal(classes="dialog-buttons"):
                yield Button("Abort (a)", id="abort", variant="primary")
                yield Button("Try anyway (t)", id="try", variant="error")

    def on_mount(self) -> None:
        self.query_one("#abort", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "try")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)
