"""Snapshots of the tournament's grid on the Results screen (issue 44, Deliver 4) in its half-block
form, at 80x24 and 120x40: the grid with the cursor moved to a checkpoint's cell, and that cell
opened large. The run is simulated and compared through the CLI with its renders; paths show as
SHOWN_ROOT (test_snapshots_results.py's fixture)."""

from __future__ import annotations

import pytest

from ltx_wizard.tui.dialogs.grid_cell import GridCellDialog
from ltx_wizard.tui.widgets.keyframes import KeyframeStrip
from tests.tui.helpers import make_app, until_shown, wait_until
from tests.tui.test_pilot_results_grid import open_grid, rendered_run
from tests.tui.test_snapshots_results import shown_root  # noqa: F401  (the fixture)

SIZES = [(80, 24), (120, 40)]


def _all_decoded(screen) -> bool:
    return all(s.found is not None for s in screen.query(KeyframeStrip))


async def _grid(pilot):
    view = await open_grid(pilot)
    await pilot.press("down", "right")
    await wait_until(pilot, lambda: view.cursor == (1, 1))
    await until_shown(pilot, "Tournament:", when=lambda: _all_decoded(pilot.app.screen))


async def _cell(pilot):
    await _grid(pilot)
    await pilot.press("enter")
    await until_shown(
        pilot,
        "Esc closes",
        when=lambda: isinstance(pilot.app.screen, GridCellDialog) and _all_decoded(pilot.app.screen),
    )


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("scenario", ["grid", "cell"])
def test_tournament_grid(scenario, size, snap_compare, shown_root, monkeypatch):  # noqa: F811
    from ltx_wizard.core.launch import accelerate_config

    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "0")
    monkeypatch.setattr(accelerate_config, "accelerate_available", lambda: False)
    run = rendered_run(shown_root / "box")
    app = make_app(run_dir=str(run))
    assert snap_compare(app, terminal_size=size, run_before=_grid if scenario == "grid" else _cell)
