"""The Monitor offers compare (issue 44, Deliver 6) once training is over and two checkpoints are
kept: c asks, then starts `ltx-wizard compare RUN --yes` in the background through core/proc (its
log logs/compare.log, its pid logs/compare.pid), and compare.json's recommendation then shows in the
Monitor's files. On a simulated run that kept its checkpoints and held clips out."""

from __future__ import annotations

import json

import pytest

from ltx_wizard.core.compare.compare_process import compare_pid
from ltx_wizard.core.compare.compare_record import read_compare
from ltx_wizard.core.launch import accelerate_config
from ltx_wizard.tui.dialogs.confirm import ConfirmDialog
from ltx_wizard.tui.screens.monitor import MonitorScreen
from tests.cli.test_cli_compare import build_run
from tests.tui.helpers import make_app, wait_until


@pytest.fixture
def finished(tmp_path, monkeypatch):
    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "0")
    monkeypatch.setattr(accelerate_config, "accelerate_available", lambda: False)
    return build_run(tmp_path / "box")


def _files(app) -> str:
    return str(app.screen.query_one("#monitor-files").render())


async def test_c_starts_compare_in_the_background_and_its_recommendation_shows(finished):
    run = finished
    app = make_app(run_dir=str(run))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(
            pilot, lambda: isinstance(app.screen, MonitorScreen) and app.screen.status is not None
        )
        screen = app.screen
        assert screen.status.state == "finished" and len(screen.status.checkpoints) >= 2
        await wait_until(pilot, lambda: screen.query_one("#compare").display)
        await pilot.press("c")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        assert f"ltx-wizard compare {run} --yes" in str(app.screen.question)
        assert "the tournament's renders" in str(app.screen.question)  # no --no-render: it renders
        await pilot.press("y")
        await wait_until(pilot, lambda: (run / "logs" / "compare.pid").is_file())
        pid = int((run / "logs" / "compare.pid").read_text().split()[0])
        await wait_until(pilot, lambda: compare_pid(run) is None and read_compare(run) is not None)
        record = read_compare(run)
        await wait_until(pilot, lambda: f"Compare: {record.recommended.reason}" in _files(app))
        assert "Picked: none yet" in _files(app)
        log = (run / "logs" / "compare.log").read_text("utf-8")
        assert f"recommended: {record.recommended.reason}" in log  # the command's own table, as printed
        assert pid > 1 and json.loads((run / "outputs" / "compare" / "compare.json").read_text())
        assert (run / "outputs" / "compare" / "grid.json").is_file()  # the renders the question named


async def test_compare_is_not_offered_while_training_runs_or_with_one_checkpoint(tmp_path):
    from tests.monitor_runs import make_run, sample_log

    run = make_run(tmp_path, sample_log("oom_cols80"), checkpoints=((20, True),))
    app = make_app(run_dir=str(run))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(
            pilot, lambda: isinstance(app.screen, MonitorScreen) and app.screen.status is not None
        )
        assert not app.screen.query_one("#compare").display
        await pilot.press("c")
        await wait_until(
            pilot,
            lambda: any("compare needs 2 kept checkpoints" in str(n.message) for n in app._notifications),
        )
        assert not isinstance(app.screen, ConfirmDialog)
        assert not (run / "logs" / "compare.pid").exists()
