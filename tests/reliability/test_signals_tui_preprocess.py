"""Issue 42, the TUI's Preprocess screen: `ltx-wizard --demo --demo-data clips` in a pty (80x24)
walked by keys to the plan approved, its one-sample preprocess running (the simulated
process_dataset.py, a caption every 25 s); then a signal to the wizard. Nothing of the script may
be alive 5 s after the wizard is gone."""

from __future__ import annotations

import pytest

from .children import Wizard, signals, wait_logged
from .tui_walk import CTRL_N, tui, walk_to_the_recipe

SLOW = {"LTX_WIZARD_SIM_SPEED": "0.02"}
LOGS = "ltx-wizard-demo-*/ltx-trainings/*/logs/preprocess*.log"


def walk_to_the_preprocessing(wizard: Wizard, tmp_path) -> None:
    walk_to_the_recipe(wizard, tmp_path)
    wizard.key_until(CTRL_N, "your clips' dataset file")  # Paths, the demo's clips filled in
    wizard.key_to(CTRL_N, "Skip autotune")  # the Summary screen
    # Approve is ignored until the screen's draft is built (a worker; the footer shows before it)
    wizard.key_until("a", "One clip")  # the step bar of the one-clip preprocessing
    wizard.child_up("ltx_wizard.demo.sim.preprocess")
    wait_logged(tmp_path, LOGS, "Loaded")  # then 25 s for a caption
    wizard.record()


@pytest.mark.parametrize("sig", signals())
def test_a_signal_to_the_tui_stops_the_preprocessing(tmp_path, sig):
    with tui(tmp_path, "clips", **SLOW) as wizard:
        walk_to_the_preprocessing(wizard, tmp_path)
        wizard.assert_leaves_nothing(sig)
