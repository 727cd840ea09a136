"""Issue 42, the TUI: `ltx-wizard --demo` in a pty (80x24) walked by keys to the Summary screen,
autotune approved ('a'), its first trial (the simulated trainer, told to hang at step 20) running;
then a signal to the wizard. Nothing of the trial may be alive 5 s after the wizard is gone."""

from __future__ import annotations

import pytest

from .children import Wizard, signals, wait_logged
from .tui_walk import CTRL_N, tui, walk_to_the_recipe

HANG = {"LTX_WIZARD_SIM_SPEED": "500", "LTX_WIZARD_SIM_FAULT": "hang"}
TRIAL_LOGS = "ltx-wizard-demo-*/ltx-trainings/*/logs/trial-*.log"


def walk_to_a_running_trial(wizard: Wizard, tmp_path) -> None:
    walk_to_the_recipe(wizard, tmp_path)
    wizard.key_until(CTRL_N, "your clips' dataset file")  # Paths, the demo's files filled in
    wizard.key_to(CTRL_N, "Skip autotune")  # the Summary screen
    # Approve is ignored until the screen's draft is built (a worker; the footer shows before it)
    wizard.key_until("a", "Cancel autotune")  # the Autotune screen's footer
    wizard.child_up("ltx_wizard.demo.sim.trainer")
    wait_logged(tmp_path, TRIAL_LOGS, "Step 20/")  # silent from here: the hang
    wizard.record()


@pytest.mark.parametrize("sig", signals())
def test_a_signal_to_the_tui_stops_the_autotune_trial(tmp_path, sig):
    with tui(tmp_path, "latents", **HANG) as wizard:
        walk_to_a_running_trial(wizard, tmp_path)
        wizard.assert_leaves_nothing(sig)
