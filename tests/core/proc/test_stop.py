"""The one stop rule (core/proc/stop.py) on real processes: SIGINT, then SIGTERM, then SIGKILL,
each after its grace; and, last, whatever still carries the child's tag, however it got away."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from ltx_wizard.core.proc import registry
from ltx_wizard.core.proc.spawn import spawn
from ltx_wizard.core.proc.stop import Graces

SHORT = Graces(interrupt_s=0.5, term_s=0.5, orphan_s=0.5, kill_wait_s=10.0)

# Writes each signal it gets to `heard`, one name a line; `leave_on` ends it, the rest are heard
# and ignored. Says "up" once its handlers are in place.
LISTENER = """
import os, signal, sys, time
heard, leave_on = sys.argv[1], sys.argv[2]
def on(signum, frame):
    with open(heard, "a") as fh:
        fh.write(signal.Signals(signum).name + "\\n")
    if signal.Signals(signum).name == leave_on:
        os._exit(0)
for sig in (signal.SIGINT, signal.SIGTERM):
    signal.signal(sig, on)
print("up", flush=True)
while True:
    time.sleep(3600)
"""


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except FileNotFoundError:
        return False
    return stat[stat.rfind(b")") + 2 :].split()[0] != b"Z"


def _listener(tmp_path: Path, leave_on: str):
    script = tmp_path / "listener.py"
    script.write_text(textwrap.dedent(LISTENER))
    heard = tmp_path / "heard"
    child = spawn(
        [sys.executable, str(script), str(heard), leave_on], graces=SHORT, stdout=subprocess.PIPE, text=True
    )
    assert child.popen.stdout.readline() == "up\n"  # its handlers are in place
    return child, heard


def test_the_rule_is_sigint_then_sigterm_then_sigkill(tmp_path):
    child, heard = _listener(tmp_path, leave_on="none")
    assert child in registry.live()
    child.stop_blocking()
    assert heard.read_text().split() == ["SIGINT", "SIGTERM"]
    assert child.popen.wait() == -9 and not _alive(child.pid)
    assert child not in registry.live()
    child.popen.stdout.close()


def test_a_child_that_leaves_on_sigint_never_hears_sigterm(tmp_path):
    child, heard = _listener(tmp_path, leave_on="SIGINT")
    child.stop_blocking()
    assert heard.read_text().split() == ["SIGINT"]
    assert child.popen.wait() == 0
    child.popen.stdout.close()


# A leader whose grandchild leaves at once (its own session, its parent gone before anyone could
# walk the tree): only the tag it inherited still names it.
RUNAWAY = """
import subprocess, sys, time
middle = subprocess.Popen([sys.executable, "-c",
    "import subprocess, sys; subprocess.Popen([sys.executable, '-c', "
    "'import os, time; os.setsid(); print(os.getpid(), flush=True); time.sleep(3600)'])"],
    stdout=subprocess.PIPE, text=True)
middle.wait()  # the middle is gone: the grandchild is re-parented, in a session of its own
print("runaway", middle.stdout.readline().strip(), flush=True)
time.sleep(3600)
"""


def test_a_grandchild_that_got_away_before_any_walk_is_found_by_its_tag(tmp_path):
    script = tmp_path / "runaway.py"
    script.write_text(textwrap.dedent(RUNAWAY))
    child = spawn([sys.executable, str(script)], graces=SHORT, stdout=subprocess.PIPE, text=True)
    runaway = int(child.popen.stdout.readline().split()[1])
    try:
        assert _alive(runaway) and os.getsid(runaway) == runaway  # out of the child's group
        assert runaway not in child.tree.known  # never seen in the tree
        child.stop_blocking()
        assert not _alive(runaway) and not _alive(child.pid)
    finally:
        if _alive(runaway):
            os.kill(runaway, 9)
        child.popen.stdout.close()
