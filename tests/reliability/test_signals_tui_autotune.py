"""Issue 42, the TUI: `ltx-wizard --demo` in a pty (80x24) walked by keys to the Summary screen,
autotune approved ('a'), its first trial (the simulated trainer, told to hang at step 20) running;
then a signal to the wizard. Nothing of the trial may be alive 5 s after the wizard is gone."""

from __future__ import annotations

import contextlib

import pytest

from .children import Wizard, signals, wait_for, wait_logged, wizard_env

CTRL_N = "\x0e"
HANG = {"LTX_WIZARD_SIM_SPEED": "500", "LTX_WIZARD_SIM_FAULT": "hang"}
TRIAL_LOGS = "ltx-wizard-demo-*/ltx-trainings/*/logs/trial-*.log"


def walk_to_a_running_trial(wizard: Wizard, tmp_path) -> None:
    wizard.wait_shown("^n Continue ^r Re-probe")  # the Probe screen, its probe done
    # Continue waits for the demo's files (a worker writes them, the clips last); the screen does
    # not say when it is enabled, so a press it ignored is pressed again after a while
    wait_for(lambda: list(tmp_path.glob("ltx-wizard-demo-*/clips/demo-cats/*.json")), 60, "the demo's files")
    for _ in range(5):
        with contextlib.suppress(AssertionError):
            wizard.key_to(CTRL_N, "What do you want the model to learn", timeout_s=5)
            break
    wizard.wait_shown("What do you want the model to learn")
    wizard.key_to("\r", "Will you generate from text alone")
    wizard.key_to(CTRL_N, "LTX-2 trainer checkout")  # Paths, the demo's files filled in
    wizard.key_to(CTRL_N, "Skip autotune")  # the Summary screen
    wizard.press("a")
    wizard.child_up("ltx_wizard.demo.sim.trainer")
    wait_logged(tmp_path, TRIAL_LOGS, "Step 20/")  # silent from here: the hang
    wizard.record()


@pytest.mark.parametrize("sig", signals())
def test_a_signal_to_the_tui_stops_the_autotune_trial(tmp_path, sig):
    # the demo's folder (tempfile) inside this test's: nothing left in /tmp
    env = wizard_env(TMPDIR=str(tmp_path), **HANG)
    with Wizard(["--demo", "--demo-data", "latents"], env=env, cwd=tmp_path, tty=True) as wizard:
        walk_to_a_running_trial(wizard, tmp_path)
        wizard.assert_leaves_nothing(sig)
