"""Issue 42, item 2: a wizard killed by SIGKILL leaves its children running; the next start
stops them and says so. A command prints that line; the TUI shows it on its first screen (a
toast over the Probe screen) and prints it again on the way out. Before, cli.py printed it to
stderr just before the app took the terminal, where nobody saw it. Here the orphan is real (a
child of core/proc started by a process then killed), reaped by cli.py's own start-up step."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from ltx_wizard.cli import reap_orphans
from ltx_wizard.core.proc.tags import OWNER_ENV
from ltx_wizard.core.proc.table import env_values, pid_alive
from ltx_wizard.tui.screens.probe import ProbeScreen
from tests.tui.helpers import make_app, until_shown, wait_until

REPO = Path(__file__).resolve().parents[2]
DRIVER = """
import sys, time
from ltx_wizard.core.proc.spawn import spawn
child = spawn([sys.executable, "-c", "import time; time.sleep(600)"])
print(child.pid, flush=True)
time.sleep(600)
"""


def toasts_shown(app) -> list[str]:
    """The text of each toast on the screen now (its title, then its message, as drawn)."""
    return [re.sub(r"\s+", " ", str(toast.render())) for toast in app.screen.query("Toast")]


def killed_wizards_orphan(tmp_path: Path) -> tuple[int, int]:
    """(the killed owner's pid, its orphan's pid): a child of core/proc whose owner got SIGKILL."""
    (tmp_path / "driver.py").write_text(textwrap.dedent(DRIVER))
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    driver = subprocess.Popen([sys.executable, str(tmp_path / "driver.py")], stdout=subprocess.PIPE, env=env)
    with driver.stdout:
        orphan = int(driver.stdout.readline())
    # exec'd with its tag (before exec, /proc shows the driver's own environment)
    deadline = time.monotonic() + 60
    while orphan not in env_values(OWNER_ENV):
        assert time.monotonic() < deadline, "the child never showed its owner's tag"
        time.sleep(0.05)
    driver.send_signal(signal.SIGKILL)
    driver.wait(60)
    return driver.pid, orphan


async def test_the_line_on_the_orphans_a_start_stopped_shows_on_the_first_screen_and_on_exit(tmp_path):
    owner, orphan = killed_wizards_orphan(tmp_path)
    try:
        assert pid_alive(orphan)
        said = reap_orphans()  # what main() does before it builds the app
        assert not pid_alive(orphan)
        expected = (
            f"ltx-wizard: stopped 1 process(es) an earlier wizard (pid {owner}) left running "
            f"when it was killed: pid {orphan}"
        )
        assert said == expected
        app = make_app(simulate="h100", orphans_reaped=said)
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await until_shown(pilot, "Continue", when=lambda: isinstance(app.screen, ProbeScreen))
            await wait_until(pilot, lambda: any(expected in shown for shown in toasts_shown(app)))
            assert isinstance(app.screen, ProbeScreen)  # the first screen shows it
            await pilot.press("ctrl+q")
        out, err = app.after_exit()
        assert err[0] == expected  # kept where the user reads it after the screen is gone
    finally:
        if pid_alive(orphan):
            os.kill(orphan, signal.SIGKILL)
