"""Stopping a trial stops every rank, even ranks that torchrun put in sessions of their own."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import textwrap
from pathlib import Path

import pytest

from ltx_wizard.core.proc import registry
from ltx_wizard.core.proc.child import TEARDOWN_GRACE_S, ChildProcess
from ltx_wizard.core.proc.table import Proc
from ltx_wizard.core.proc.tree import RankTracker
from ltx_wizard.core.autotune.trials.trial_runner import TrialRunner

BOUND_S = 60

# A rank as torchrun starts it: its own session (os.setsid), holding the launcher's stdout.
RANK = """
import os, signal, sys, time
os.setsid()
mode = sys.argv[1]
if mode == "stubborn":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
elif mode == "polite":
    def bye(signum, frame):
        time.sleep(0.2)  # a rank's teardown takes a moment
        open(os.path.join(sys.argv[2], f"rank-{os.getpid()}.term"), "w").close()
        sys.exit(0)
    signal.signal(signal.SIGTERM, bye)
    signal.signal(signal.SIGINT, bye)
# One write per line: with PYTHONUNBUFFERED (the trial forces it) print() writes each word on its
# own, and two ranks and the launcher sharing the pipe would interleave their words.
os.write(1, f"rank {os.getpid()} {os.getsid(0)}\\n".encode())
while True:
    time.sleep(3600)
"""

# A launcher: starts two ranks; `mode` says what it does on SIGINT or SIGTERM (or on SIGUSR1:
# exit): polite passes it on and waits, stubborn and abandon just die of it. torchrun's elastic
# agent treats SIGINT as SIGTERM (torch/distributed/elastic/agent/server/api.py: both raise its
# SignalException and the workers get that signal), and so do these stand-ins.
LAUNCHER = """
import os, signal, subprocess, sys, time
signal.signal(signal.SIGINT, signal.SIG_DFL)  # die of it, as of SIGTERM
rank_py, mode, marks = sys.argv[1:4]
rank_mode = "polite" if mode == "abandon" else mode  # abandon: polite ranks, no forwarding
ranks = [subprocess.Popen([sys.executable, rank_py, rank_mode, marks]) for _ in range(2)]
def forward(signum, frame):  # torchrun's way: pass the signal on, wait for the ranks
    for rank in ranks:
        rank.send_signal(signum)
    for rank in ranks:
        rank.wait()
    sys.exit(0)
if mode == "polite":
    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)
signal.signal(signal.SIGUSR1, lambda s, f: os._exit(0))
os.write(1, f"launcher {os.getpid()}\\n".encode())  # one write: see RANK
while True:
    time.sleep(3600)
"""


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except FileNotFoundError:
        return False
    return stat[stat.rfind(b")") + 2 :].split()[0] != b"Z"


class Lines:
    def __init__(self) -> None:
        self.texts: list[str] = []
        self.changed = asyncio.Event()

    def reap(self) -> None:
        """After the test: a rank the code under test missed must not outlive the test run."""
        for text in self.texts:
            if text.startswith("rank ") and _alive(pid := int(text.split()[1])):
                os.kill(pid, signal.SIGKILL)

    def __call__(self, line) -> None:
        self.texts.append(line.text)
        self.changed.set()

    async def ranks(self, count: int = 2) -> list[int]:
        """The ranks' pids, once both ranks are up and the launcher has its handlers in place."""

        def found() -> list[int]:
            return [int(t.split()[1]) for t in self.texts if t.startswith("rank ")]

        while len(found()) < count or not any(t.startswith("launcher ") for t in self.texts):
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), BOUND_S)
            except TimeoutError:
                raise AssertionError(f"ranks not all up; the trial printed {self.texts!r}") from None
        return found()


def _launcher(tmp_path: Path, mode: str) -> list[str]:
    (tmp_path / "rank.py").write_text(textwrap.dedent(RANK))
    (tmp_path / "launcher.py").write_text(textwrap.dedent(LAUNCHER))
    return [sys.executable, str(tmp_path / "launcher.py"), str(tmp_path / "rank.py"), mode, str(tmp_path)]


@pytest.fixture
def lines():
    collected = Lines()
    before = {id(child) for child in registry.live()}
    yield collected
    collected.reap()
    for child in registry.live():  # a failed test must not leave its trial to the next one
        if id(child) not in before:
            registry.forget(child)
            child.kill_now()


async def _until_known(trial: ChildProcess, pids: list[int]) -> None:
    """Wait for the trial's periodic tree walk to have seen every rank (an event, bounded)."""

    async def seen() -> None:
        while not set(pids) <= set(trial.ranks.known):
            await asyncio.sleep(0.05)

    await asyncio.wait_for(seen(), BOUND_S)


async def test_stop_sigkills_ranks_in_their_own_sessions_after_the_grace(tmp_path, lines):
    trial = ChildProcess(_launcher(tmp_path, "stubborn"), on_line=lines, grace_s=0.5)
    await trial.start()
    ranks = await lines.ranks()
    assert all(os.getpgid(pid) != trial.pid for pid in ranks)  # out of reach of killpg
    result = await asyncio.wait_for(trial.stop("cancelled"), BOUND_S)

    assert result.ended_by == "cancelled"
    assert not any(_alive(pid) for pid in ranks)
    assert registry.live() == []


async def test_the_launcher_gets_its_grace_to_stop_its_ranks_itself(tmp_path, lines):
    trial = ChildProcess(_launcher(tmp_path, "polite"), on_line=lines, grace_s=BOUND_S)
    await trial.start()
    ranks = await lines.ranks()
    result = await asyncio.wait_for(trial.stop("cancelled"), BOUND_S)

    assert result.returncode == 0  # the launcher exited by itself, not by SIGKILL
    assert sorted(p.name for p in tmp_path.glob("rank-*.term")) == sorted(
        f"rank-{pid}.term" for pid in ranks
    )  # each rank ran its SIGTERM teardown
    assert not any(_alive(pid) for pid in ranks)


async def test_ranks_a_dead_launcher_left_get_sigterm_without_waiting_out_its_grace(tmp_path, lines):
    trial = ChildProcess(_launcher(tmp_path, "abandon"), on_line=lines, grace_s=4 * BOUND_S)
    await trial.start()
    ranks = await lines.ranks()
    # the launcher dies of SIGINT (the rule's first word) at once; its teardown is over, so its
    # ranks are told directly
    result = await asyncio.wait_for(trial.stop("cancelled"), BOUND_S)

    assert result.returncode == -signal.SIGINT
    assert sorted(p.name for p in tmp_path.glob("rank-*.term")) == sorted(f"rank-{pid}.term" for pid in ranks)
    assert not any(_alive(pid) for pid in ranks)


async def test_ranks_left_by_a_launcher_that_exits_are_taken_down(tmp_path, lines):
    trial = ChildProcess(_launcher(tmp_path, "stubborn"), on_line=lines, grace_s=0.5)
    await trial.start()
    ranks = await lines.ranks()
    await _until_known(trial, ranks)
    os.kill(trial.pid, signal.SIGUSR1)  # the launcher dies, its ranks are re-parented
    result = await asyncio.wait_for(trial.wait(), BOUND_S)

    assert result.ended_by == "exit" and result.returncode == 0
    assert not any(_alive(pid) for pid in ranks)


def test_the_default_teardown_grace_is_at_least_30_s():
    assert TEARDOWN_GRACE_S >= 30
    assert ChildProcess(["true"]).graces.term_s == TEARDOWN_GRACE_S
    assert TrialRunner(None, lambda: None, lambda e: None).grace_s == TEARDOWN_GRACE_S


def test_a_reused_pid_is_not_mistaken_for_a_rank():
    rows = [Proc(100, 1, 100, 10), Proc(200, 100, 200, 11)]  # launcher, rank in its own group
    tracker = RankTracker(100, read_rows=lambda: rows)
    tracker.refresh()
    rows = [Proc(200, 1, 200, 11)]  # launcher gone: the rank is re-parented, still ours
    assert [r.pid for r in tracker.survivors(tracker.refresh())] == [200]
    rows = [Proc(200, 1, 200, 99)]  # pid 200 now belongs to a stranger started later
    assert tracker.survivors(tracker.refresh()) == []
