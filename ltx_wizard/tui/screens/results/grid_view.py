"""The tournament's grid on the Results screen (issue 44, Deliver 4): a row for the base model and
one per compared checkpoint, a column per prompt, each cell the first keyframe of its render drawn
by KeyframeStrip (half-blocks everywhere, Kitty or Sixel where the terminal has them), or the
reason it is missing, all read from grid.json (core/compare/grid_record.py). The arrow keys move
the cursor, Enter opens the cell large (dialogs/grid_cell.py); the screen picks with k.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from ltx_wizard.core.base.text_safety import clean_text
from ltx_wizard.core.compare.grid_record import GridCell, GridRecord, GridRow, cell_file, row_label
from ltx_wizard.tui.widgets.keyframes import KeyframeStrip


def cell_title(grid: GridRecord, row: GridRow, column: int) -> str:
    """'step 1,400 · in-distribution: <prompt>' as the cell's dialog names it."""
    prompt = grid.prompts[column]
    return clean_text(f"{row_label(row)} · {prompt.category}: {prompt.text}")


class GridView(VerticalScroll, can_focus=True):
    """The grid, with a cursor (row, column) the keys move."""

    BINDINGS = [
        Binding("up", "move(-1, 0)", "Up", show=False),
        Binding("down", "move(1, 0)", "Down", show=False),
        Binding("left", "move(0, -1)", "Left", show=False),
        Binding("right", "move(0, 1)", "Right", show=False),
        Binding("enter", "open", "Open cell"),
    ]

    @dataclass
    class Opened(Message):
        """Enter on a cell: the screen shows it large."""

        row: GridRow
        column: int
        cell: GridCell

    def __init__(
        self, run_dir: Path, grid: GridRecord, *, graphics: Any = None, id: str | None = None
    ) -> None:
        super().__init__(id=id)
        self.run_dir, self.grid, self.graphics = Path(run_dir), grid, graphics
        self.cursor = (0, 0)

    def compose(self):
        # each column's share, less its margin and the padding the cursor's sides are drawn on
        cells = max(12, (self.app.size.width - 4) // max(1, len(self.grid.prompts)) - 3)
        heads = [
            Static(Text(clean_text(f"{p.index + 1}. {p.category}: {p.text}")), classes="grid-head")
            for p in self.grid.prompts
        ]
        yield Horizontal(*heads, classes="grid-row grid-heads")
        for r, row in enumerate(self.grid.rows):
            yield Horizontal(
                *(self._cell(r, c, cell, cells) for c, cell in enumerate(row.cells)), classes="grid-row"
            )

    def _cell(self, r: int, c: int, cell: GridCell, cells: int) -> Widget:
        name = f"grid-cell-{r}-{c}"
        label = clean_text(f"{row_label(self.grid.rows[r])} · {c + 1}. {self.grid.prompts[c].category}")
        if cell.render is None:
            return Static(
                Text(f"{label}\nmissing: {clean_text(cell.missing or '')}", style="italic"),
                id=name,
                classes="grid-cell grid-missing",
            )
        strip = KeyframeStrip(
            cell_file(self.run_dir, cell.render), label, cells=cells, count=1, id=name, graphics=self.graphics
        )
        strip.add_class("grid-cell")
        return strip

    def on_mount(self) -> None:
        self._mark()

    def cell_widget(self, r: int, c: int) -> Widget:
        return self.query_one(f"#grid-cell-{r}-{c}")

    def _mark(self) -> None:
        for widget in self.query(".grid-cell"):
            widget.remove_class("-cursor")
        widget = self.cell_widget(*self.cursor)
        widget.add_class("-cursor")
        self.scroll_to_widget(widget, animate=False)

    def action_move(self, down: int, right: int) -> None:
        r, c = self.cursor
        rows, columns = len(self.grid.rows), len(self.grid.prompts)
        self.cursor = (min(max(0, r + down), rows - 1), min(max(0, c + right), columns - 1))
        self._mark()

    def action_open(self) -> None:
        r, c = self.cursor
        row = self.grid.rows[r]
        self.post_message(self.Opened(row, c, row.cells[c]))

    @property
    def selected_row(self) -> GridRow:
        return self.grid.rows[self.cursor[0]]
