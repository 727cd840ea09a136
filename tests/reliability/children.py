"""The wizard as a real process, and every process it started, found in /proc.

The signal tests of issue 42 (tests/reliability/test_signals_<phase>.py) start `ltx-wizard
<command>` (or the TUI in a pty, 80x24) as a subprocess in its own session, wait until the child
they are about is up (a descendant whose command line holds a word, read from /proc, never a
fixed sleep), record every descendant then (pid + start time, so a reused pid is not mistaken
for it, and so a grandchild that left the group with its own setsid is still known), send the
wizard a signal, and wait, bounded, until none of them is alive 5 s after the wizard is gone.
Nothing here depends on the tag the wizard puts on its children: the tests hold with or without it.
"""

from __future__ import annotations

import contextlib
import os
import pty
import re
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
import uuid
from dataclasses import dataclass
from fcntl import ioctl
from pathlib import Path
from typing import Callable, Iterable, Sequence, TypeVar

import pytest

REPO = Path(__file__).resolve().parents[2]
MARK_ENV = "LTX_WIZARD_SIGNAL_TEST"  # every process a test starts inherits it (found after a setsid)
GONE_WITHIN_S = 5.0  # issue 42: nothing of the child's left 5 s after the wizard is gone
WIZARD_EXIT_S = 20.0  # the wizard itself ends: its stop rule gives a child a few seconds of grace
NEXT_START_S = 15.0  # a fresh wizard starting on a loaded machine, then stopping what it found
UP_WITHIN_S = 60.0  # a child up: generous for a loaded machine, returns as soon as it is
SIGNALS = [signal.SIGHUP, signal.SIGTERM, signal.SIGINT]
SIGNAL_IDS = ["HUP", "TERM", "INT"]

T = TypeVar("T")
_ESCAPES = re.compile(r"\x1b(?:\[[0-9;?]*[A-Za-z]|[()][AB0]|[=>]|\][^\x07]*\x07)")


@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    pgid: int
    sid: int
    state: str
    start: int  # clock ticks after boot: with pid, names one process for good
    cmdline: str

    def __str__(self) -> str:
        return f"{self.pid} (pgid {self.pgid}, {self.state}) {self.cmdline[:120]}"


def read_proc(pid: int) -> Proc | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            cmdline = fh.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return None
    fields = stat.rsplit(b")", 1)[1].split()
    state, ppid, pgid, sid = fields[0].decode(), int(fields[1]), int(fields[2]), int(fields[3])
    return Proc(pid, ppid, pgid, sid, state, int(fields[19]), cmdline)


def table() -> dict[int, Proc]:
    found = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            proc = read_proc(int(name))
            if proc is not None:
                found[proc.pid] = proc
    return found


def descendants(root: int, procs: dict[int, Proc] | None = None) -> list[Proc]:
    """Every live process below `root` in the parent tree (zombies left out)."""
    procs = table() if procs is None else procs
    children: dict[int, list[Proc]] = {}
    for proc in procs.values():
        children.setdefault(proc.ppid, []).append(proc)
    out, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child.state != "Z":
                out.append(child)
            todo.append(child.pid)
    return out


def marked(mark: str) -> list[Proc]:
    """Live processes whose environment carries this test's mark (a child that left the tree)."""
    needle = f"\0{MARK_ENV}={mark}\0".encode()
    found = []
    for proc in table().values():
        try:
            with open(f"/proc/{proc.pid}/environ", "rb") as fh:
                env = b"\0" + fh.read() + b"\0"
        except OSError:
            continue
        if needle in env and proc.state != "Z" and proc.pid != os.getpid():
            found.append(proc)
    return found


def alive(proc: Proc) -> bool:
    now = read_proc(proc.pid)
    return now is not None and now.start == proc.start and now.state != "Z"


def wait_for(predicate: Callable[[], T], timeout_s: float, what: str) -> T:
    """Poll an observable state until it holds (returns its value) or fail naming it."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout_s:.0f} s: {what}")
        time.sleep(0.05)


def kill_all(procs: Iterable[Proc]) -> None:
    for proc in procs:
        if alive(proc):
            with contextlib.suppress(OSError):
                os.kill(proc.pid, signal.SIGKILL)


def wizard_env(**extra: str) -> dict[str, str]:
    """This checkout of the wizard first on the path, whatever the venv's editable install says."""
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path, "TERM": "xterm-256color", **extra}


class Wizard:
    """`python -m ltx_wizard ARGV` in a session of its own (a terminal's signals reach only what
    the test sends), its output to files (a pipe nobody reads would block it), or to a pty."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        env: dict[str, str],
        cwd: Path,
        tty: bool = False,
        program: Sequence[str] = (sys.executable, "-m", "ltx_wizard"),
    ) -> None:
        self.mark = uuid.uuid4().hex
        self.out = cwd / f"wizard-{self.mark[:8]}.out"
        self.recorded: list[Proc] = []
        self._screen = bytearray()
        self._master: int | None = None
        full_env = {**env, MARK_ENV: self.mark}
        argv = [*program, *argv]
        if tty:
            master, slave = pty.openpty()
            ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
            full_env.update(COLUMNS="80", LINES="24")
            self.proc = subprocess.Popen(
                argv, cwd=cwd, env=full_env, stdin=slave, stdout=slave, stderr=slave, start_new_session=True
            )
            os.close(slave)
            self._master = master
            threading.Thread(target=self._drain, daemon=True).start()
        else:
            with open(self.out, "wb") as sink:
                self.proc = subprocess.Popen(
                    argv,
                    cwd=cwd,
                    env=full_env,
                    stdin=subprocess.DEVNULL,
                    stdout=sink,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )

    def _drain(self) -> None:
        assert self._master is not None
        while True:
            try:
                chunk = os.read(self._master, 65536)
            except OSError:
                return
            if not chunk:
                return
            self._screen += chunk

    @property
    def output(self) -> str:
        if self._master is not None:
            return self._screen.decode(errors="replace")
        return self.out.read_text(errors="replace") if self.out.exists() else ""

    def press(self, *keys: str) -> None:
        assert self._master is not None
        for key in keys:
            os.write(self._master, key.encode())

    @property
    def shown(self) -> str:
        """The pty's text, escape sequences out and blanks folded: what a screen says."""
        text = _ESCAPES.sub(" ", self.output)
        return re.sub(r"\s+", " ", text)

    def key_to(self, key: str, text: str, timeout_s: float = UP_WITHIN_S) -> None:
        """Press `key`, then wait until the screen it leads to shows `text` (drawn after the key)."""
        before = len(self.shown)
        self.press(key)
        self.wait_shown(text, timeout_s, after=max(0, before - len(text)))

    def key_until(self, key: str, text: str, tries: int = 6) -> None:
        """key_to for a screen that ignores the key until a worker of its own is done (and does
        not show when): pressed again after a while, until `text` shows."""
        for _ in range(tries - 1):
            with contextlib.suppress(AssertionError):
                self.key_to(key, text, timeout_s=8)
                return
        self.key_to(key, text)

    def wait_shown(self, text: str, timeout_s: float = UP_WITHIN_S, after: int = 0) -> None:
        def seen() -> bool:
            return text in self.shown[after:] or self._ended()

        wait_for(seen, timeout_s, f"{text!r} on the wizard's screen (shown: {self.shown[-1500:]!r})")
        assert text in self.shown[after:], f"the wizard ended before {text!r}:\n{self.shown[-3000:]}"

    def _ended(self) -> bool:
        return self.proc.poll() is not None

    def family(self) -> list[Proc]:
        found = {p.pid: p for p in marked(self.mark) if p.pid != self.proc.pid}
        found.update({p.pid: p for p in descendants(self.proc.pid)})
        return list(found.values())

    def child_up(self, word: str, timeout_s: float = UP_WITHIN_S) -> list[Proc]:
        """Wait until a process with `word` in its command line runs below the wizard (or left
        its tree but carries the mark); record every descendant then, and return them."""

        def up() -> list[Proc]:
            if self._ended():
                raise AssertionError(f"the wizard ended before {word!r} ran:\n{self.output[-3000:]}")
            return [p for p in self.family() if word in p.cmdline]

        wait_for(up, timeout_s, f"a child running {word!r} (output: {self.output[-2000:]!r})")
        self.record()
        return self.recorded

    def record(self) -> None:
        known = {(p.pid, p.start) for p in self.recorded}
        self.recorded += [p for p in self.family() if (p.pid, p.start) not in known]

    def send(self, sig: int) -> None:
        self.record()
        os.kill(self.proc.pid, sig)

    def wait_gone(self, timeout_s: float = WIZARD_EXIT_S) -> int:
        try:
            return self.proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"the wizard still runs {timeout_s:.0f} s after the signal") from None

    def left_alive(self, within_s: float = GONE_WITHIN_S) -> list[Proc]:
        """What of the recorded children (or anything carrying the mark) still runs `within_s`
        after the wizard is gone; empty once all of it is."""
        deadline = time.monotonic() + within_s

        def left() -> list[Proc]:
            found = {p.pid: p for p in marked(self.mark) if p.pid != self.proc.pid}
            found.update({p.pid: p for p in self.recorded if alive(p)})
            return list(found.values())

        while (still := left()) and time.monotonic() < deadline:
            time.sleep(0.05)
        return still

    def assert_leaves_nothing(self, sig: int) -> int:
        """Signal the wizard; it must end, and nothing it started may run 5 s after it ended."""
        assert self.recorded, "no child was recorded before the signal"
        self.send(sig)
        code = self.wait_gone()
        still = self.left_alive()
        assert not still, (
            f"alive {GONE_WITHIN_S:.0f} s after the wizard ({signal.Signals(sig).name}): "
            + "; ".join(map(str, still))
        )
        return code

    def close(self) -> None:
        """Clean up whatever a failing case left, before the sandbox's own census runs."""
        with contextlib.suppress(OSError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(10)
        kill_all(self.recorded)
        kill_all(marked(self.mark))
        if self._master is not None:
            with contextlib.suppress(OSError):
                os.close(self._master)

    def __enter__(self) -> Wizard:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def signals() -> list:
    """SIGHUP, SIGTERM and SIGINT as test parameters (ids HUP, TERM, INT)."""
    return [pytest.param(sig, id=name) for sig, name in zip(SIGNALS, SIGNAL_IDS)]


REAPED_WORDS = re.compile(r"orphan|left (?:running|behind)|still running from|reaped|stopped \d+ ", re.I)


def next_start_reaps(first: Wizard, argv: Sequence[str], *, env: dict[str, str], cwd: Path) -> None:
    """SIGKILL the wizard (no handler runs: what the OOM killer does); whatever of its children
    still runs 5 s later must be gone once the wizard starts next (`argv`), and that start must
    say so (the words of REAPED_WORDS, or an orphan's pid)."""
    first.send(signal.SIGKILL)
    first.wait_gone()
    # a watchdog of its own (autotune's reaper) may stop them as promptly as a handler would:
    # what still runs after that grace is an orphan nobody but the next start will stop
    orphans = first.left_alive()
    with Wizard(argv, env=env, cwd=cwd) as second:
        wait_for(
            lambda: not any(alive(p) for p in orphans),
            NEXT_START_S,
            "the next start stopping the orphans: " + "; ".join(map(str, orphans)),
        )
        if orphans:
            wait_for(
                lambda: (
                    REAPED_WORDS.search(second.output) or any(str(p.pid) in second.output for p in orphans)
                ),
                NEXT_START_S,
                f"the next start saying it stopped {len(orphans)} orphans (said: {second.output[-2000:]!r})",
            )


def wait_logged(folder: Path, pattern: str, text: str, timeout_s: float = UP_WITHIN_S) -> Path:
    """Wait until a file under `folder` matching `pattern` holds `text` (a child's log line: it
    is past its start-up and in the long part of its work); returns that file."""

    def found() -> Path | None:
        for path in sorted(folder.glob(pattern)):
            with contextlib.suppress(OSError):
                if text in path.read_text(errors="replace"):
                    return path
        return None

    hit = wait_for(found, timeout_s, f"{text!r} in {folder}/{pattern}")
    assert hit is not None
    return hit
