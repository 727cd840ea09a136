"""Start a child through the service: its own session (one signal reaches its whole group), its
tags in the environment (tags.py), registered as live until nothing of it is left (registry.py),
stopped by the one rule (stop.py). `spawn` gives a subprocess.Popen (a thread reads it, or it
writes to a file), `spawn_async` an asyncio process (the event loop reads it); child.py streams
lines on top of the latter.

kind "detached": a training the user started on purpose, which must outlive the wizard and an
SSH drop: its own session, tagged so that no reaper ever takes it, and never registered.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from typing import Any, Mapping, Sequence

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.proc import registry
from ltx_wizard.core.proc.stop import DEFAULT_GRACES, Graces, kill_now, take_down, take_down_blocking
from ltx_wizard.core.proc.tags import Kind, child_tag, tag_env
from ltx_wizard.core.proc.tree import RankTracker


class Owned:
    """What the service knows of one child: its group and descendants, its tag, its graces."""

    def __init__(self, pid: int, tag: str, graces: Graces, kind: Kind, register: bool = True) -> None:
        self.pid, self.tag, self.graces = pid, tag, graces
        self.tree = RankTracker(pid, tag=tag)
        if kind == "owned" and register:
            registry.register(self)

    def track(self) -> None:
        """Walk the tree again, so ranks that leave the group are known before the launcher ends."""
        self.tree.refresh()

    def exited(self) -> bool:  # the leader has been reaped; each starter says how
        raise NotImplementedError

    def stop_blocking(self) -> None:
        """The stop rule on whatever of the child is left, waiting in this thread."""
        take_down_blocking(self.tree, launcher_gone=self.exited(), graces=self.graces)
        self.release()

    async def stop(self) -> object:
        await take_down(self.tree, launcher_gone=self.exited(), graces=self.graces)
        self.release()
        return None

    def kill_now(self) -> None:
        kill_now(self.tree)

    def release(self) -> None:
        """Leave the registry once nothing of the child is left (else exit still SIGKILLs it)."""
        if not self.tree.alive():
            registry.forget(self)


class Spawned(Owned):
    def __init__(self, popen: subprocess.Popen[Any], tag: str, graces: Graces, kind: Kind) -> None:
        self.popen = popen
        super().__init__(popen.pid, tag, graces, kind)

    def exited(self) -> bool:
        return self.popen.poll() is not None

    def stop_blocking(self) -> None:
        super().stop_blocking()
        # Reaped without waiting: a signal handler may run this while the code it interrupted
        # is inside popen.wait(), holding the lock a second wait() would block on for ever.
        self.popen.poll()


class AsyncSpawned(Owned):
    def __init__(self, proc: asyncio.subprocess.Process, tag: str, graces: Graces, register: bool) -> None:
        self.proc = proc
        super().__init__(proc.pid, tag, graces, "owned", register)

    def exited(self) -> bool:
        return self.proc.returncode is not None

    async def stop(self) -> object:
        await super().stop()
        await self.proc.wait()
        return None


def child_env(
    env: Mapping[str, str] | None, tag: str, kind: Kind, overlay: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The child's environment: `env` (ours when None), `overlay` on top, then its tags."""
    return {**(os.environ if env is None else env), **(overlay or {}), **tag_env(tag, kind)}


def spawn(
    argv: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    session: str | None = None,
    kind: Kind = "owned",
    graces: Graces = DEFAULT_GRACES,
    **popen: Any,
) -> Spawned:
    """subprocess.Popen(argv, **popen) in a session of its own, stdin from /dev/null unless
    said; raises WizardError naming the program when it cannot start."""
    tag = child_tag(session)
    popen.setdefault("stdin", subprocess.DEVNULL)
    try:
        proc = subprocess.Popen(
            list(argv), env=child_env(env, tag, kind), start_new_session=True, close_fds=True, **popen
        )
    except OSError as exc:
        raise WizardError(f"could not start {argv[0]}: {exc.strerror or exc}") from None
    return Spawned(proc, tag, graces, kind)


async def spawn_async(
    argv: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    session: str | None = None,
    graces: Graces = DEFAULT_GRACES,
    register: bool = True,
    **kwargs: Any,
) -> AsyncSpawned:
    """asyncio.create_subprocess_exec(*argv, **kwargs) in a session of its own (OSError as is);
    register=False: the caller registers itself (child.py)."""
    tag = child_tag(session)
    kwargs.setdefault("stdin", asyncio.subprocess.DEVNULL)
    proc = await asyncio.create_subprocess_exec(
        *argv, env=child_env(env, tag, "owned"), start_new_session=True, **kwargs
    )
    return AsyncSpawned(proc, tag, graces, register)
