"""The tournament's grid on the Results screen (issue 44, Deliver 4): g shows grid.json's rows
(base, then each compared step) by its prompts as keyframes, the arrow keys move the cursor, Enter
opens the cell large and Esc closes it, k picks the selected row's checkpoint; on a simulated run
compared through the CLI with its renders."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.compare.grid_record import cell_file, read_grid, row_label
from ltx_wizard.core.launch import accelerate_config
from ltx_wizard.tui.dialogs.grid_cell import GridCellDialog
from ltx_wizard.tui.screens.monitor import MonitorScreen
from ltx_wizard.tui.screens.results import ResultsScreen
from ltx_wizard.tui.screens.results.grid_view import GridView
from ltx_wizard.tui.widgets.keyframes import HALF, KeyframeStrip
from tests.cli.test_cli_compare import build_run
from tests.tui.helpers import make_app, settle, wait_until


@pytest.fixture(autouse=True)
def _plain_env(monkeypatch):
    monkeypatch.delenv("TMUX", raising=False)
    monkeypatch.delenv("SSH_CONNECTION", raising=False)
    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "0")
    monkeypatch.setenv("LTX_WIZARD_GRAPHICS", "halfblocks")
    monkeypatch.setattr(accelerate_config, "accelerate_available", lambda: False)


def rendered_run(box):
    """A simulated run compared with its renders (`compare RUN --yes --json`), as a user runs it."""
    run = build_run(box)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(["compare", str(run), "--yes", "--json"]) == 0
    found = json.loads(out.getvalue())
    assert found["grid"] == str(run / "outputs" / "compare" / "grid.json")
    return run


@pytest.fixture
def compared(tmp_path, _plain_env):
    return rendered_run(tmp_path / "box")


def decoded(screen, count: int) -> bool:
    return len([s for s in screen.query(KeyframeStrip) if s.found is not None]) >= count


async def open_grid(pilot) -> GridView:
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, MonitorScreen) and app.screen.status is not None)
    await pilot.press("e")
    await wait_until(
        pilot, lambda: isinstance(app.screen, ResultsScreen) and app.screen.compare.grid is not None
    )
    await settle(pilot)
    await pilot.press("g")
    await wait_until(pilot, lambda: bool(app.screen.query(GridView)) and app.screen.has_class("grid"))
    return app.screen.query_one(GridView)


async def test_the_grid_moves_opens_a_cell_large_and_picks_its_row(compared):
    run = compared
    grid = read_grid(run)
    app = make_app(run_dir=str(run))
    async with app.run_test(size=(80, 24)) as pilot:
        view = await open_grid(pilot)
        screen = app.screen
        rows, columns = len(grid.rows), len(grid.prompts)
        assert rows >= 6 and columns == 3  # the base and each kept checkpoint, eval's three categories
        rec = json.loads((run / "outputs" / "compare" / "compare.json").read_text())["recommended"]["step"]
        head = str(screen.query_one("#results-head").render())  # the grid's short head
        assert head.startswith(f"Tournament: {rows} models x {columns} prompts; recommended step {rec:,}; ")
        assert f"picked none yet (k picks the row)\nEach at {grid.settings}" in head
        cells = list(view.query(".grid-cell"))
        assert len(cells) == rows * columns
        # each cell draws its render's first keyframe, the render grid.json names
        strips = list(view.query(KeyframeStrip))
        assert sorted(str(s.path) for s in strips) == sorted(
            str(cell_file(run, c.render)) for r in grid.rows for c in r.cells if c.render
        )
        await wait_until(pilot, lambda: all(s.found is not None for s in view.query(KeyframeStrip)[:columns]))
        assert HALF in str(view.cell_widget(0, 0).render())
        assert view.cursor == (0, 0) and view.cell_widget(0, 0).has_class("-cursor")
        await pilot.press("right", "right", "right", "down", "down")  # the right edge stops it
        assert view.cursor == (2, columns - 1)
        assert view.cell_widget(2, columns - 1).has_class("-cursor")
        assert not view.cell_widget(0, 0).has_class("-cursor")
        await pilot.press("up", "left")
        assert view.cursor == (1, columns - 2)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, GridCellDialog))
        dialog = app.screen
        row, cell = grid.rows[1], grid.rows[1].cells[columns - 2]
        assert dialog.title_text.startswith(f"{row_label(row)} · {grid.prompts[columns - 2].category}: ")
        large = dialog.query_one("#grid-cell-large", KeyframeStrip)
        assert large.path == cell_file(run, cell.render) and large.count == 2  # at 80x24: first and last
        assert large.label.endswith(": first and last frames")
        await wait_until(pilot, lambda: large.found is not None)
        assert len(large.found.frames) == 2 and HALF in str(large.render())
        assert large.cells > 2 * view.cell_widget(1, columns - 2).cells  # each frame larger than the grid's
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen)
        await pilot.press("k")  # the selected row's checkpoint
        picked = run / "outputs" / "compare" / "pick.json"
        await wait_until(pilot, picked.is_file)
        assert json.loads(picked.read_text())["step"] == row.step
        summary = run / "run-summary.md"  # written again with the pick: its render line uses it
        said = f"It uses the checkpoint you picked, step {row.step:,} "
        await wait_until(pilot, lambda: summary.is_file() and said in summary.read_text("utf-8"))
        assert f"--lora {row.checkpoint} 1.0" in summary.read_text("utf-8").split("## Render with it", 1)[1]
        await wait_until(
            pilot, lambda: f"; picked step {row.step:,}" in str(screen.query_one("#results-head").render())
        )
        await pilot.press("up", "k")  # the base model's row: no checkpoint to pick
        await wait_until(
            pilot, lambda: any("base model is no checkpoint" in str(n.message) for n in app._notifications)
        )
        assert json.loads(picked.read_text())["step"] == row.step
        await pilot.press("g")  # back to the evaluation's list, its head saying the grid's key
        await wait_until(pilot, lambda: not screen.has_class("grid"))
        assert f"Tournament: {rows} models x {columns} prompts, g shows the grid" in str(
            screen.query_one("#results-head").render()
        )
