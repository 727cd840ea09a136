"""Pick the checkpoint to use, of those compare compared (issue 44, Deliver 5): one row per
checkpoint with its numbers from compare.json, the recommended one and the current pick marked.
Dismisses the step picked, or None on Esc; the Results screen records it (core/compare/pick_record.py)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ltx_wizard.core.base.text_safety import clean_text
from ltx_wizard.core.compare.compare_view import Compared, checkpoint_row
from ltx_wizard.tui.dialogs.once import OnceModal

CHECKPOINT_PICK_HELP = (
    "Pick a checkpoint",
    """\
The checkpoints compare compared, with their held-out loss, training loss, effect against the base
model and health (from `outputs/compare/compare.json`); the recommended one is marked, and the one you
picked before. Enter picks the highlighted one (written to `outputs/compare/pick.json`; run-summary.md's
render line then uses it); Esc goes back without picking. `ltx-wizard pick RUN STEP` does the same.""",
)


class CheckpointPickDialog(OnceModal["int | None"]):
    F1_HELP = CHECKPOINT_PICK_HELP
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, compared: Compared) -> None:
        super().__init__()
        self.compared = compared

    def compose(self) -> ComposeResult:
        record, pick = self.compared.record, self.compared.pick
        with Vertical(classes="dialog"):
            yield Static("Pick the checkpoint to use", classes="dialog-title")
            options = [
                Option(Text(clean_text(checkpoint_row(c, record, pick))), id=str(c.step))
                for c in record.checkpoints
            ]
            yield OptionList(*options, id="checkpoint-pick-list")
            yield Static(Text(clean_text(f"Recommended: {record.recommended.reason}")), classes="dialog-hint")
            yield Static("Enter picks · Esc cancels", classes="dialog-hint")

    def on_mount(self) -> None:
        steps = [c.step for c in self.compared.record.checkpoints]
        pick = self.compared.pick
        start = pick.step if pick is not None else self.compared.record.recommended.step
        options = self.query_one(OptionList)
        options.highlighted = steps.index(start) if start in steps else 0
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(int(event.option.id or 0))

    def action_cancel(self) -> None:
        self.dismiss(None)
