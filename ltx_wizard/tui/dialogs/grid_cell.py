"""One cell of the tournament's grid, large (issue 44, Deliver 4): its render's keyframes across the
dialog's width (KeyframeStrip: half-blocks everywhere, Kitty or Sixel where the terminal has them),
the prompt and the settings every cell rendered with. Esc closes it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

from ltx_wizard.core.base.text_safety import clean_text
from ltx_wizard.tui.dialogs.once import OnceModal
from ltx_wizard.tui.widgets.keyframes import KeyframeStrip

GRID_CELL_HELP = (
    "A cell of the tournament",
    """\
One render of the tournament, large: its keyframes from first to last, the prompt and seed, and
the settings every cell rendered with (the same for the base model and each checkpoint). Esc closes it.""",
)
KEYFRAMES = 3  # as the tournament keeps them: first, middle, last
WIDE = 105  # cells inside the dialog for all three side by side at ~35 cells each; fewer: first and last


class GridCellDialog(OnceModal[None]):
    F1_HELP = GRID_CELL_HELP
    BINDINGS = [Binding("escape", "close", "Close")]

    def __init__(
        self, title: str, render: Path | None, missing: str | None, settings: str, *, graphics: Any = None
    ) -> None:
        super().__init__()
        self.title_text, self.render_path, self.missing = title, render, missing
        self.settings, self.graphics = settings, graphics

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog grid-cell-dialog"):
            yield Static(Text(self.title_text, no_wrap=False), classes="dialog-title")
            if self.render_path is None:
                yield Static(Text(f"No render: {clean_text(self.missing or '')}", style="italic"))
            else:
                cells = max(
                    30, self.app.size.width * 95 // 100 - 8
                )  # the dialog's inside (.grid-cell-dialog)
                count = KEYFRAMES if cells >= WIDE else 2  # each frame large, not three slivers at 80x24
                which = "first, middle and last frames" if count == KEYFRAMES else "first and last frames"
                yield KeyframeStrip(
                    self.render_path,
                    clean_text(f"{self.render_path.name}: {which}"),
                    cells=cells,
                    count=count,
                    id="grid-cell-large",
                    graphics=self.graphics,
                )
            yield Static(Text(clean_text(self.settings), style="dim"), classes="dialog-hint")
            yield Static("Esc closes", classes="dialog-hint")

    def action_close(self) -> None:
        self.dismiss(None)
