"""The one stop rule, for every child of the wizard: SIGINT to its group, then SIGTERM, then
SIGKILL, each after a grace, ranks that left the group included (tree.py), and at the end every
process still carrying the child's tag (tags.py), however it got away.

- SIGINT first: what Ctrl-C says, which every tool understands (uv, git, a Python script: a
  KeyboardInterrupt that runs its cleanup); torchrun passes it on to its ranks.
- SIGTERM after `interrupt_s`: a launcher gets `term_s` to stop its ranks itself (torchrun
  waits for ranks saving state or leaving NCCL: 30 s for a trainer).
- Once the launcher's whole group is gone, what it left outside the group gets the same signal
  from us and `orphan_s` to end (nobody else would ever stop it).
- SIGKILL to every survivor, until none is left or `kill_wait_s` has passed.

The rule is written once, as steps that say how long to wait before looking again; `take_down`
waits on the event loop, `take_down_blocking` in the calling thread.
"""

from __future__ import annotations

import asyncio
import signal
import time
from dataclasses import dataclass, replace
from typing import Generator, Iterator

from ltx_wizard.core.proc.tags import TAG_ENV, in_session
from ltx_wizard.core.proc.table import env_values
from ltx_wizard.core.proc.tree import RankTracker


@dataclass(frozen=True)
class Graces:
    interrupt_s: float = 5.0  # after SIGINT
    term_s: float = 10.0  # after SIGTERM: the launcher stops its ranks
    orphan_s: float = 5.0  # what a launcher that has ended left behind, per signal
    kill_wait_s: float = 10.0  # after SIGKILL, the longest we wait for the kernel to clear it
    poll_s: float = 0.05  # how often a dying child is looked at again

    def with_term(self, term_s: float) -> Graces:
        """`term_s` after SIGTERM, and no longer than that after SIGINT either (a caller that
        asks for a short stop gets one, whichever signal the child heeds)."""
        return replace(self, interrupt_s=min(self.interrupt_s, term_s), term_s=term_s)


DEFAULT_GRACES = Graces()
# torchrun, on SIGTERM, signals its ranks and waits for them; a rank saving state or leaving NCCL
# needs seconds, so the launcher gets this long before anything is SIGKILLed.
TRAINER_GRACES = Graces(term_s=30.0)


def steps(tree: RankTracker, *, launcher_gone: bool, graces: Graces) -> Iterator[float]:
    """The rule, as waits: each value is how long to wait before the next look."""
    for sig, grace in ((signal.SIGINT, graces.interrupt_s), (signal.SIGTERM, graces.term_s)):
        if not tree.alive():
            break
        yield from _signal_and_wait(tree, sig, grace, launcher_gone, graces)
    else:
        yield from _kill(tree, graces)
    if tree.tag is not None:  # the last look: what still carries the child's tag
        found = [pid for pid, value in env_values(TAG_ENV).items() if in_session(value, tree.tag)]
        if found:
            tree.adopt(found)
            yield from _signal_and_wait(tree, signal.SIGTERM, graces.orphan_s, True, graces)
            yield from _kill(tree, graces)


def _signal_and_wait(
    tree: RankTracker, sig: int, grace_s: float, launcher_gone: bool, graces: Graces
) -> Generator[float, None, None]:
    tree.signal_all(sig, escaped_too=False)
    deadline = time.monotonic() + grace_s
    told = False  # the processes outside the group have had `sig` too
    while tree.alive():
        now = time.monotonic()
        if not told and (launcher_gone or not tree.group_alive()):
            tree.signal_escaped(sig)
            told, deadline = True, min(deadline, now + graces.orphan_s)
        if now >= deadline:
            return
        yield graces.poll_s


def _kill(tree: RankTracker, graces: Graces) -> Generator[float, None, None]:
    deadline = time.monotonic() + graces.kill_wait_s
    while tree.alive():
        tree.signal_all(signal.SIGKILL)  # a survivor found only now gets it too
        if time.monotonic() >= deadline:
            return
        yield graces.poll_s


async def take_down(
    tree: RankTracker, *, launcher_gone: bool = False, graces: Graces = DEFAULT_GRACES
) -> None:
    """The rule, waiting on the running event loop."""
    for wait_s in steps(tree, launcher_gone=launcher_gone, graces=graces):
        await asyncio.sleep(wait_s)


def take_down_blocking(
    tree: RankTracker, *, launcher_gone: bool = False, graces: Graces = DEFAULT_GRACES
) -> None:
    """The rule, waiting in this thread (no event loop: a thread, a signal handler, exit)."""
    for wait_s in steps(tree, launcher_gone=launcher_gone, graces=graces):
        time.sleep(wait_s)


def kill_now(tree: RankTracker) -> None:
    """SIGKILL the group and every process of it found outside, without waiting: the last
    resort (the interpreter leaving, a second signal)."""
    tree.signal_all(signal.SIGKILL)
