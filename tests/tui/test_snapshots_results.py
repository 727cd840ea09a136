"""Snapshots of the evaluation's contact sheet in its half-block form, at 80x24 and 120x40: the
Results screen over a laid-out evaluation (renders made by the simulated trainer's renderer), and
the Monitor's validation samples dialog. Paths are shown as SHOWN_ROOT (see test_snapshots.py)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
import textual._doc

from ltx_wizard.demo.tiny_video import write_render
from ltx_wizard.tui.dialogs.samples import SamplesDialog
from ltx_wizard.tui.screens.monitor import MonitorScreen
from ltx_wizard.tui.screens.results import ResultsScreen
from ltx_wizard.tui.widgets.keyframes import KeyframeStrip
from tests.eval_runs import laid_out_run
from tests.tui.helpers import SHOWN_ROOT, make_app, until_shown, wait_until

SIZES = [(80, 24), (120, 40)]


@pytest.fixture
def shown_root(monkeypatch):
    parent = Path(SHOWN_ROOT).parent
    root = Path(tempfile.mkdtemp(prefix="ltxsnap", dir=parent))
    assert len(str(root)) == len(SHOWN_ROOT), root
    take = textual._doc.take_svg_screenshot

    def shown(*args, **kwargs) -> str:
        svg = take(*args, **kwargs)
        # a dialog over a path cuts it: its visible start is replaced too
        for n in range(len(str(root)), len(str(parent)) + 8, -1):
            svg = svg.replace(str(root)[:n], SHOWN_ROOT[:n])
        return svg

    monkeypatch.setattr(textual._doc, "take_svg_screenshot", shown)
    monkeypatch.delenv("TMUX", raising=False)
    monkeypatch.delenv("SSH_CONNECTION", raising=False)
    monkeypatch.setenv("LOGNAME", "you")
    monkeypatch.setenv("LTX_WIZARD_GRAPHICS", "halfblocks")  # whatever the terminal running them
    yield root
    shutil.rmtree(root, ignore_errors=True)


def _decoded(app, count):
    return len([s for s in app.screen.query(KeyframeStrip) if s.found is not None]) == count


async def _results(pilot):
    await wait_until(
        pilot, lambda: isinstance(pilot.app.screen, MonitorScreen) and pilot.app.screen.status is not None
    )
    await pilot.press("e")
    await until_shown(
        pilot,
        "Post-training evaluation:",
        "In-distribution 1:",
        when=lambda: isinstance(pilot.app.screen, ResultsScreen) and _decoded(pilot.app, 2),
    )


async def _samples(pilot):
    await wait_until(
        pilot, lambda: isinstance(pilot.app.screen, MonitorScreen) and pilot.app.screen.status is not None
    )
    await pilot.press("v")
    await until_shown(
        pilot,
        "Validation samples of step 50 (2)",
        when=lambda: isinstance(pilot.app.screen, SamplesDialog) and _decoded(pilot.app, 2),
    )


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("scenario", ["results", "samples"])
def test_contact_sheet(scenario, size, snap_compare, shown_root):
    run = laid_out_run(shown_root)
    if scenario == "samples":
        for index, prompt in ((1, "a kite over the sea"), (2, "a cat in the rain")):
            write_render(run / "outputs/samples" / f"step_000050_{index}.mp4", prompt, 42, None, 89)
    app = make_app(run_dir=str(run))
    assert snap_compare(app, terminal_size=size, run_before=_results if scenario == "results" else _samples)
