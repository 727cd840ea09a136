"""An SSH drop (SIGHUP) while a trial runs: the wizard stops the trainer's group, then leaves."""

from __future__ import annotations

import os
import signal

import pytest

from ltx_wizard.core.proc.registry import live as live_trials
from ltx_wizard.core.proc.table import group_alive
from tests.tui.helpers import make_app, to_summary, wait_until

HANG = {"sim_env": {"LTX_WIZARD_SIM_SPEED": "500", "LTX_WIZARD_SIM_FAULT": "hang"}}


@pytest.mark.serial  # sends SIGHUP to the test process itself
async def test_sighup_stops_the_trial_group_and_exits(demo_root):
    app = make_app(demo_root, **HANG, at="summary")
    async with app.run_test(size=(120, 40)) as pilot:
        assert app._unwatch_signals is not None  # otherwise SIGHUP would kill the test run
        await to_summary(pilot)
        before = {id(trial) for trial in live_trials()}  # a trial another test left registered
        await pilot.press("a")
        await wait_until(pilot, lambda: "step 20/40" in str(app.screen.query_one("#trial-label").render()))
        groups = [trial.pid for trial in live_trials() if id(trial) not in before]
        assert groups and all(group_alive(pgid) for pgid in groups)
        os.kill(os.getpid(), signal.SIGHUP)
        await wait_until(pilot, lambda: not any(group_alive(pgid) for pgid in groups))
        await wait_until(pilot, lambda: app.return_code is not None)
    assert app.state.summary is not None and app.state.summary.trials[-1].outcome == "cancelled"
    assert app.return_code == 128 + signal.SIGHUP
    assert not any(group_alive(pgid) for pgid in groups)
