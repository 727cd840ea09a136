"""Journey 0: the README's run command, exactly as printed, on a clean box.

A copy of the working tree, a fresh virtual environment from the system's `python3`, no extras and
no torch: `pip install .` must bring everything the wizard imports, and `ltx-wizard --demo` must
reach the Probe screen's GPU table in a real pseudo-terminal of 80x24. This is the test that sees an
undeclared dependency (numpy, once) that the test command's torch install would hide.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import shlex
import shutil
import signal
import struct
import subprocess
import termios
import time
from pathlib import Path

import pytest

from tests.project.test_readme import block

ROOT = Path(__file__).resolve().parents[2]
ESCAPES = re.compile(
    rb"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[PX^_][^\x1b]*\x1b\\|[()][A-Z0-9]|.)"
)

pytestmark = pytest.mark.skipif(shutil.which("python3") is None, reason="the README's command runs python3")


def _copy_tree(dest: Path) -> None:
    """The files a fresh clone would have: tracked plus untracked-but-not-ignored (so a change not
    yet committed is what gets installed)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout.split(b"\0")
    for raw in filter(None, listed):
        source = ROOT / raw.decode()
        if source.is_file():
            target = dest / raw.decode()
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def _screen_text(stream: bytes) -> str:
    return ESCAPES.sub(b" ", stream).decode("utf-8", "replace")


def _read_until(
    fd: int, wanted: list[str], proc: subprocess.Popen, limit_s: float, nudge: bytes = b""
) -> str:
    """Reads the terminal until every wanted string has been drawn, the wizard exits, or the limit
    passes (a bound on a wait for state, not a sleep). `nudge` is a key sent again whenever the
    screen has been still for a second: Continue is refused until the demo's files are written,
    and a user presses it again."""
    stream = b""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 1.0)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            stream += chunk
            text = _screen_text(stream)
            if all(word in text for word in wanted):
                return text
        elif proc.poll() is not None:
            break
        elif nudge:
            os.write(fd, nudge)
    return _screen_text(stream)


def test_the_readme_run_command_reaches_the_gpu_table_on_a_clean_box(tmp_path):
    (line,) = block("run-command")
    steps = [shlex.split(part) for part in line.split("&&")]
    box = tmp_path / "clone"
    _copy_tree(box)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHON"))}
    for name in ("PIP_NO_INDEX", "PIP_CONFIG_FILE"):  # conftest's guard: this test installs for real
        env.pop(name, None)
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if ".venv" not in p)
    for step in steps[:-1]:  # the venv, the install: as printed, in the clone
        done = subprocess.run(step, cwd=box, env=env, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"{shlex.join(step)} failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
    probe = subprocess.run(
        [str(box / ".venv/bin/python"), "-c", "import torch"], capture_output=True, text=True
    )
    assert probe.returncode != 0, "the fresh venv must not have torch: it would hide a missing dependency"

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env.update(TERM="xterm-256color", COLUMNS="80", LINES="24")
    wizard = subprocess.Popen(
        steps[-1],
        cwd=box,
        env=env,
        stdin=follower,
        stdout=follower,
        stderr=follower,
        start_new_session=True,
    )
    os.close(follower)
    try:
        text = _read_until(leader, ["NVIDIA RTX A6000", "48.0 GiB", "Tier:"], wizard, limit_s=120)
        assert "NVIDIA RTX A6000" in text and "48.0 GiB" in text, text[-2000:]
        # The demo's files are written by the probe screen's worker after the table is drawn: the
        # journey goes on to the Paths screen, which shows them, so a failed build cannot hide.
        # ctrl+n: Continue, to the question of what to train
        text += _read_until(leader, ["What do you want the model to learn"], wizard, 60, nudge=b"\x0e")
        os.write(leader, b"\x13")  # ctrl+s: Skip, I know my recipe: the Paths screen
        text += _read_until(leader, ["ltx-wizard-demo-", "Gemma text encoder"], wizard, limit_s=60)
        assert "ltx-wizard-demo-" in text, text[-2000:]
        for word in ("failed", "No module named", "Traceback", "internal error"):
            assert word.lower() not in text.lower(), text[-2000:]
        os.write(leader, b"\x11")  # ctrl+q: the wizard quits as a user would quit it
        # read on while it exits: it restores the terminal on the way out, and a full terminal
        # buffer would block it there
        text += _read_until(leader, ["Demo: its temporary folder"], wizard, 60)
        assert wizard.wait(timeout=60) == 0, text[-2000:]
    finally:
        if wizard.poll() is None:
            os.killpg(wizard.pid, signal.SIGKILL)
            wizard.wait()
        os.close(leader)
