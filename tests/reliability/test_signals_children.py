"""The helper of the signal tests (children.py) can fail: a stand-in wizard that leaves its
child running in a session of its own is caught, one that stops it is not."""

from __future__ import annotations

import signal
import sys

import pytest

from .children import Wizard, wizard_env

# a parent that starts a sleeper in its own session (a vLLM server's way), and on SIGTERM either
# leaves it (sys.argv[1] == "leave") or stops it first
STAND_IN = """
import os, signal, subprocess, sys, time
def stop(*_):
    if sys.argv[1] != "leave":
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
    sys.exit(143)
signal.signal(signal.SIGTERM, stop)  # before the child: a signal once it runs finds the handler
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"], start_new_session=True)
time.sleep(120)
"""


def test_a_child_left_running_is_caught(tmp_path):
    with Wizard(
        ["leave"], env=wizard_env(), cwd=tmp_path, program=(sys.executable, "-c", STAND_IN)
    ) as wizard:
        wizard.child_up("time.sleep(120)")
        with pytest.raises(AssertionError, match="alive 5 s after the wizard"):
            wizard.assert_leaves_nothing(signal.SIGTERM)


def test_a_child_stopped_passes(tmp_path):
    with Wizard(["stop"], env=wizard_env(), cwd=tmp_path, program=(sys.executable, "-c", STAND_IN)) as wizard:
        wizard.child_up("time.sleep(120)")
        assert wizard.assert_leaves_nothing(signal.SIGTERM) == 143
