"""Issue 42, the TUI's Prepare screen: `ltx-wizard --demo --demo-data raw` in a pty (80x24) walked
by keys to a running caption spot check (the look-alike checkout's serve_captioner.py, the
stand-in server, and caption_videos.py waiting on it, the captions slowed); then a signal to the
wizard. Neither may be alive 5 s after the wizard is gone."""

from __future__ import annotations

import pytest

from .children import Wizard, signals, wait_for, wait_logged
from .tui_walk import CTRL_N, tui, walk_to_the_recipe

SLOW = {"LTX_WIZARD_SIM_CAPTION_DELAY": "120"}
LOGS = "ltx-wizard-demo-*/ltx-trainings/*/logs/prepare-caption*.log"


def walk_to_the_captions(wizard: Wizard, tmp_path) -> None:
    walk_to_the_recipe(wizard, tmp_path)
    wizard.key_until(CTRL_N, "Prepare your clips")
    wizard.wait_shown("Captioner: qwen_omni")  # the stand-in server fits the simulated GPU
    # the demo's raw clips are written by a worker: Prepare waits for them
    wait_for(lambda: list(tmp_path.glob("ltx-wizard-demo-*/raw-clips/quiet.mp4")), 60, "the raw clips")
    wizard.key_until(CTRL_N, "waiting for your answer: rotated clips")
    wizard.key_to("y", "waiting for your answer: held-out samples")
    wizard.press("\r")  # the held-out count it suggests
    wizard.child_up("serve_captioner.py")
    wizard.child_up("caption_videos.py")
    wait_logged(tmp_path, LOGS, "media files to process")  # waiting on the slowed server
    wizard.record()


@pytest.mark.parametrize("sig", signals())
def test_a_signal_to_the_tui_stops_the_captioner_and_its_script(tmp_path, sig):
    with tui(tmp_path, "raw", **SLOW) as wizard:
        walk_to_the_captions(wizard, tmp_path)
        wizard.assert_leaves_nothing(sig)
