"""The Results screen after `ltx-wizard compare` (issue 44, Deliver 5): its head shows compare.json's
recommendation and the pick, and k picks a checkpoint of those compared (pick.json), on a simulated
run that kept its checkpoints, held clips out and was compared through the CLI."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.launch import accelerate_config
from ltx_wizard.tui.dialogs.checkpoint_pick import CheckpointPickDialog
from ltx_wizard.tui.screens.monitor import MonitorScreen
from ltx_wizard.tui.screens.results import ResultsScreen
from ltx_wizard.tui.screens.results.compare_part import head_lines
from tests.cli.test_cli_compare import build_run
from tests.tui.helpers import make_app, settle, shown_text, wait_until


@pytest.fixture(autouse=True)
def _plain_env(monkeypatch):
    monkeypatch.delenv("TMUX", raising=False)
    monkeypatch.delenv("SSH_CONNECTION", raising=False)
    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "0")
    monkeypatch.setenv("LTX_WIZARD_GRAPHICS", "halfblocks")
    monkeypatch.setattr(accelerate_config, "accelerate_available", lambda: False)


@pytest.fixture
def compared_run(tmp_path, _plain_env):
    """Built and compared outside the test's event loop (the commands run their own)."""
    run = build_run(tmp_path / "box")
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(["compare", str(run), "--yes", "--json", "--no-render"]) == 0
    return run, json.loads(out.getvalue())


async def _results(pilot) -> ResultsScreen:
    await wait_until(
        pilot, lambda: isinstance(pilot.app.screen, MonitorScreen) and pilot.app.screen.status is not None
    )
    await pilot.press("e")
    await wait_until(
        pilot,
        lambda: isinstance(pilot.app.screen, ResultsScreen) and pilot.app.screen.compare.compared is not None,
    )
    await settle(pilot)
    return pilot.app.screen


@pytest.fixture
def uncompared_run(tmp_path, _plain_env):
    return build_run(tmp_path / "box", held=0)


async def test_the_head_shows_the_recommendation_and_k_picks_a_checkpoint(compared_run):
    from ltx_wizard.core.compare.compare_record import compare_line, read_compare

    run, found = compared_run
    rec = found["recommended"]["step"]
    steps = [c["step"] for c in found["checkpoints"]]
    app = make_app(run_dir=str(run))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _results(pilot)
        line = head_lines(screen.compare)[0]
        assert line == f"Compare: {compare_line(read_compare(run))}. Picked: none yet (k picks)"
        assert found["recommended"]["reason"] in line
        assert "Picked: none yet (k picks)" in shown_text(app)
        await pilot.press("k")
        await wait_until(pilot, lambda: isinstance(app.screen, CheckpointPickDialog))
        dialog = app.screen
        rows = [str(o.prompt) for o in dialog.query_one("#checkpoint-pick-list").options]
        assert len(rows) == len(steps)
        assert [r.split(":")[0] for r in rows] == [f"step {s:,}" for s in steps]
        assert rows[steps.index(rec)].endswith("[recommended]")
        assert dialog.query_one("#checkpoint-pick-list").highlighted == steps.index(rec)
        other = steps.index(rec) - 1 if steps.index(rec) > 0 else 1
        await pilot.press("up" if other < steps.index(rec) else "down")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ResultsScreen))
        picked = json.loads((run / "outputs" / "compare" / "pick.json").read_text())
        assert picked["step"] == steps[other] and picked["recommended_step"] == rec
        await wait_until(pilot, lambda: f"Picked: step {steps[other]:,}" in head_lines(screen.compare)[0])
        await pilot.press("k")  # the pick is marked, and highlighted
        await wait_until(pilot, lambda: isinstance(app.screen, CheckpointPickDialog))
        rows = [str(o.prompt) for o in app.screen.query_one("#checkpoint-pick-list").options]
        assert rows[other].endswith("[picked]")
        assert app.screen.query_one("#checkpoint-pick-list").highlighted == other
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, ResultsScreen))


async def test_k_before_compare_says_how_to_compare(uncompared_run):
    run = uncompared_run
    app = make_app(run_dir=str(run))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(
            pilot, lambda: isinstance(pilot.app.screen, MonitorScreen) and pilot.app.screen.status is not None
        )
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, ResultsScreen))
        await settle(pilot)
        await pilot.press("k")
        await wait_until(
            pilot, lambda: any("No comparison yet" in str(n.message) for n in app._notifications)
        )
        assert not isinstance(app.screen, CheckpointPickDialog)
