"""Two screens in Textual's light theme at 80x24 (issue 45, 6): the wizard's own stylesheet reads
on a light background too (borders, the step bar, muted text). The walks are test_snapshots.py's."""

from __future__ import annotations

import pytest

from tests.tui.helpers import make_app
from tests.tui.test_snapshots import SCENARIOS, demo_root, fixed_path  # noqa: F401  # (fixtures)

LIGHT = "textual-light"


@pytest.mark.parametrize("scenario", ["summary", "monitor"])
def test_screen_in_the_light_theme(scenario, snap_compare, demo_root, scripted, fixed_path):  # noqa: F811
    overrides, walk = SCENARIOS[scenario]
    overrides = dict(overrides)
    if scenario == "monitor":  # test_snapshots.py's run: failed (OOM) after saving a checkpoint
        from tests.monitor_runs import make_run, sample_log

        steps = sample_log("ok_single_gpu_cols250").split("INFO     🎥 Validation samples for step 50")[0]
        crash = sample_log("oom_cols80")
        run = make_run(
            demo_root, steps + crash[crash.index("Traceback") :], gc=False, checkpoints=((40, True),)
        )
        overrides["run_dir"] = str(run)
    app = make_app(demo_root, engine_factory=scripted, **overrides)

    async def run_before(pilot) -> None:
        pilot.app.theme = LIGHT
        await walk(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
