"""Issue 43, Why 3: a render in a run folder that is a FIFO (`mkfifo RUN/outputs/eval/in-distribution/
01_….base.mp4`, then `--run-dir RUN`, `e`) blocked PyAV's open, and with it the Results screen's
keyframes and ctrl+q, for as long as no writer came. A render is opened as a regular file first
(core/evaluation/keyframes.py): a FIFO is named at once and the TUI stays quittable."""

from __future__ import annotations

import os
import threading

import pytest

from ltx_wizard.core.evaluation.keyframes import decode, video_size
from ltx_wizard.core.evaluation.layout import eval_dir
from ltx_wizard.tui.screens.monitor import MonitorScreen
from ltx_wizard.tui.screens.results import ResultsScreen
from ltx_wizard.tui.widgets.keyframes import KeyframeStrip
from tests.eval_runs import laid_out_run
from tests.tui.helpers import make_app, settle, wait_until

BOUND_S = 30.0  # a bound on a hang, not a wait for time: the refusal comes at once


def _fifo_render(tmp_path):
    run = laid_out_run(tmp_path)
    render = eval_dir(run) / "in-distribution" / "01_a-red-kite.base.mp4"
    render.unlink()
    os.mkfifo(render)
    return run, render


def test_a_fifo_in_a_renders_place_is_named_at_once(tmp_path):
    _run, render = _fifo_render(tmp_path)
    found: list[object] = []
    reader = threading.Thread(target=lambda: found.extend([decode(render), video_size(render)]), daemon=True)
    reader.start()
    reader.join(BOUND_S)
    assert found, "decoding a FIFO in a render's place blocked"
    keyframes, size = found
    assert "is a FIFO" in keyframes.error and size is None


@pytest.fixture
def _plain_env(monkeypatch):
    monkeypatch.delenv("TMUX", raising=False)
    monkeypatch.setenv("LTX_WIZARD_GRAPHICS", "halfblocks")


async def test_the_results_screen_shows_a_fifo_render_refused_and_quits(tmp_path, _plain_env):
    run, _render = _fifo_render(tmp_path)
    app = make_app(run_dir=str(run))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(
            pilot, lambda: isinstance(app.screen, MonitorScreen) and app.screen.status is not None
        )
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, ResultsScreen))
        screen = app.screen
        await wait_until(
            pilot, lambda: sum(1 for s in screen.query(KeyframeStrip) if s.found is not None) == 2
        )
        errors = [s.found.error for s in screen.query(KeyframeStrip) if s.found.error]
        assert len(errors) == 1 and "is a FIFO" in errors[0]
        await settle(pilot)
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: not app.is_running)
