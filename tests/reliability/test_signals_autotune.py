"""Issue 42: a signal to `ltx-wizard autotune` while a trial (the simulated trainer) runs leaves no
process of the trial alive 5 s after the wizard is gone; SIGKILL too (today autotune's reaper)."""

from __future__ import annotations

import pytest

from .children import Wizard, next_start_reaps, signals, wait_logged, wizard_env

HANG = {"LTX_WIZARD_SIM_SPEED": "500", "LTX_WIZARD_SIM_FAULT": "hang"}
TRAINER = "ltx_wizard.demo.sim"


@pytest.mark.parametrize("sig", signals())
def test_a_signal_to_autotune_stops_the_trial(box, sig):
    run = box.planned()
    argv = ["autotune", str(run), "--simulate", "h100", "--max-trials", "1"]
    with Wizard(argv, env=wizard_env(**HANG), cwd=box.root) as wizard:
        wizard.child_up(TRAINER)
        wait_logged(run / "logs", "trial-*.log", "Step 20/")  # silent from here: the hang
        wizard.assert_leaves_nothing(sig)


def test_autotune_killed_leaves_nothing_after_the_next_start(box):
    run = box.planned()
    argv = ["autotune", str(run), "--simulate", "h100", "--max-trials", "1"]
    env = wizard_env(**HANG)
    with Wizard(argv, env=env, cwd=box.root) as wizard:
        wizard.child_up(TRAINER)
        wait_logged(run / "logs", "trial-*.log", "Step 20/")  # silent from here: the hang
        next_start_reaps(wizard, argv, env=env, cwd=box.root)
