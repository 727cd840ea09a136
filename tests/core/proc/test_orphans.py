"""A wizard killed by SIGKILL runs no handler: its children run on under PID 1. The next start
finds the tagged ones whose owner is dead, stops them, and says so in one line; a detached child
(a training the user started on purpose) is never touched, nor an orphan of a wizard run from
another home (another user's; another test's, in this suite)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from ltx_wizard.cli import main
from ltx_wizard.core.proc.tags import OWNER_ENV
from ltx_wizard.core.proc.table import env_values, pid_alive

REPO = Path(__file__).resolve().parents[3]
BOUND_S = 60.0

DRIVER = """
import sys, time
from ltx_wizard.core.proc.spawn import spawn
sleeper = [sys.executable, "-c", "import time; time.sleep(600)"]
owned, detached = spawn(sleeper), spawn(sleeper, kind="detached")
print(owned.pid, detached.pid, flush=True)
time.sleep(600)
"""


def _until(check, what: str) -> None:
    deadline = time.monotonic() + BOUND_S
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {BOUND_S:.0f} s: {what}")
        time.sleep(0.05)


def test_the_next_start_reaps_a_killed_wizards_children_but_not_a_detached_one(tmp_path, capsys, monkeypatch):
    (tmp_path / "driver.py").write_text(textwrap.dedent(DRIVER))
    home = tmp_path / "driver-home"  # the killed wizard's home: only a wizard of that home reaps
    home.mkdir()
    env = {**os.environ, "PYTHONPATH": str(REPO), "HOME": str(home)}
    driver = subprocess.Popen([sys.executable, str(tmp_path / "driver.py")], stdout=subprocess.PIPE, env=env)
    owned, detached = map(int, driver.stdout.readline().split())
    try:
        # both exec'd with their tags (before exec, /proc shows the driver's own environment)
        _until(lambda: {owned, detached} <= set(env_values(OWNER_ENV)), "both children tagged")
        driver.send_signal(signal.SIGKILL)
        driver.wait(BOUND_S)
        assert pid_alive(owned) and pid_alive(detached)  # orphans now, under PID 1

        assert main(["probe", "--simulate", "h100"]) == 0  # a wizard of another home
        assert "earlier wizard" not in capsys.readouterr().err
        assert pid_alive(owned) and pid_alive(detached)

        monkeypatch.setenv("HOME", str(home))
        assert main(["probe", "--simulate", "h100"]) == 0
        said = [line for line in capsys.readouterr().err.splitlines() if "earlier wizard" in line]
        assert said == [
            f"ltx-wizard: stopped 1 process(es) an earlier wizard (pid {driver.pid}) left running "
            f"when it was killed: pid {owned}"
        ]
        assert not pid_alive(owned)
        assert pid_alive(detached)  # started on purpose to outlive the wizard
    finally:
        for pid in (owned, detached):
            if pid_alive(pid):
                os.kill(pid, signal.SIGKILL)
        driver.stdout.close()
