"""The Results screen's part of the comparison (issue 44, Deliver 4 and 5): compare.json's
recommendation and the pick in its head (core/compare/compare_view.py), the tournament's grid from
grid.json (grid_view.py; g shows it, arrows move, Enter opens a cell large), and the pick: k on the
grid's selected checkpoint, or from the list of those compared (dialogs/checkpoint_pick.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.base.text_safety import clean_text
from ltx_wizard.tui.widgets.formatting import safe_markup

if TYPE_CHECKING:  # for types only: the Results screen imports this module
    from ltx_wizard.tui.screens.results import ResultsScreen


@dataclass(frozen=True)
class CompareState:
    """What the comparison left: each a record, None before it, or a damaged file's message."""

    compared: Any = None  # core/compare/compare_view.py Compared | str | None
    grid: Any = None  # core/compare/grid_record.py GridRecord | str | None


def read_state(run_dir: Path) -> CompareState:
    """Read in the screen's worker: compare.json with the pick, and grid.json."""
    from ltx_wizard.core.compare.compare_view import read_compared
    from ltx_wizard.core.compare.grid_record import read_grid

    found: list[Any] = []
    for reader in (read_compared, read_grid):
        try:
            found.append(reader(run_dir))
        except WizardError as exc:  # a damaged file: said in the head, the rest still shows
            found.append(exc.message)
    return CompareState(*found)


def head_lines(state: CompareState) -> list[str]:
    """The head's lines: the recommendation and the pick, and the grid's key."""
    from ltx_wizard.core.compare.compare_view import results_line

    lines = []
    if isinstance(state.compared, str):
        lines.append(f"Compare: {state.compared}")
    elif state.compared is not None:
        lines.append(f"Compare: {results_line(state.compared)}")
    if isinstance(state.grid, str):
        lines.append(f"Tournament: {state.grid}")
    elif state.grid is not None:
        rows, columns = len(state.grid.rows), len(state.grid.prompts)
        lines.append(f"Tournament: {rows} models x {columns} prompts, g shows the grid")
    return [clean_text(line) for line in lines]


def grid_head(state: CompareState) -> list[str]:
    """The head while the grid is shown, kept short so the grid has the room: the recommended step,
    the pick, and how every cell rendered (the full reason is in the evaluation's head and F1)."""
    compared, grid = state.compared, state.grid
    rows, columns = len(grid.rows), len(grid.prompts)
    line = f"Tournament: {rows} models x {columns} prompts"
    if compared is not None and not isinstance(compared, str):
        rec, pick = compared.record.recommended.step, compared.pick
        line += "; recommended " + ("none" if rec is None else f"step {rec:,}")
        line += "; picked " + ("none yet (k picks the row)" if pick is None else f"step {pick.step:,}")
    return [clean_text(line), clean_text(f"Each at {grid.settings}; Enter opens a cell, g the evaluation")]


def toggle_grid(screen: ResultsScreen) -> None:
    """g: the grid in place of the evaluation's list and sheet, and back."""
    from ltx_wizard.tui.screens.results.grid_view import GridView

    grid = screen.compare.grid
    if grid is None or isinstance(grid, str):
        screen.notify(
            safe_markup(
                grid or "No tournament yet: `ltx-wizard compare RUN` renders it (without --no-render)"
            ),
            severity="warning",
        )
        return
    shown = not screen.has_class("grid")
    screen.set_class(shown, "grid")
    screen.refresh_head()
    found = screen.query(GridView)
    if shown and not found:
        view = GridView(screen.run_dir, grid, graphics=screen.graphics, id="results-grid")
        screen.mount(view, before=screen.query_one("#results-copy"))
        view.focus()
    elif shown:
        found.first().focus()
    else:
        screen.query_one("#results-list").focus()


def open_cell(screen: ResultsScreen, opened: Any) -> None:
    """Enter on a grid cell: its keyframes large, in a dialog Esc closes."""
    from ltx_wizard.core.compare.grid_record import cell_file
    from ltx_wizard.tui.dialogs.grid_cell import GridCellDialog
    from ltx_wizard.tui.screens.results.grid_view import cell_title

    grid, cell = screen.compare.grid, opened.cell
    render = None if cell.render is None else cell_file(screen.run_dir, cell.render)
    title = cell_title(grid, opened.row, opened.column) + f" (seed {grid.seed})"
    screen.app.push_screen(
        GridCellDialog(title, render, cell.missing, grid.settings, graphics=screen.graphics)
    )


def ask_pick(screen: ResultsScreen) -> None:
    """k: on the grid, its selected checkpoint; else the list of those compared."""
    from ltx_wizard.tui.dialogs.checkpoint_pick import CheckpointPickDialog
    from ltx_wizard.tui.screens.results.grid_view import GridView

    compared = screen.compare.compared
    if compared is None or isinstance(compared, str):
        screen.notify(
            "No comparison yet: run `ltx-wizard compare RUN` (or c on the Monitor) first", severity="warning"
        )
        return
    views = screen.query(GridView)
    if screen.has_class("grid") and views:
        row = views.first().selected_row
        if row.step is None:
            screen.notify("The base model is no checkpoint: pick a step's row", severity="warning")
            return
        picked(screen, row.step)
        return
    screen.app.push_screen(CheckpointPickDialog(compared), lambda step: picked(screen, step))


def picked(screen: ResultsScreen, step: int | None) -> None:
    from ltx_wizard.core.compare.compare_view import read_compared
    from ltx_wizard.core.compare.pick_record import pick

    if step is None:
        return
    try:
        made = pick(screen.run_dir, step)
        screen.compare = CompareState(read_compared(screen.run_dir), screen.compare.grid)
    except WizardError as exc:
        screen.notify(safe_markup(exc.message), severity="error", timeout=10)
        return
    screen.refresh_head()
    screen.notify(safe_markup(f"Picked step {made.step:,}: run-summary.md's render line uses it"))
