"""Start a child through the service: its own session (one signal reaches its whole group), its
tags in the environment (tags.py), registered as live until nothing of it is left (registry.py),
stopped by the one rule (stop.py). `spawn` gives a subprocess.Popen (a thread reads it, or it
writes to a file), `spawn_async` an asyncio process (the event loop reads it); child.py streams
lines on top of the latter.

kind "detached": a training the user started on purpose, which must outlive the wizard and an
SSH drop: its own session, tagged so that no reaper ever takes it, and never registered.

Every start is recorded (command_log.py: argv, cwd, the environment the wizard set), and every
end once the child is reaped: a Popen's by its poll() or wait(), an asyncio child's by its
protocol's process_exited (the moment it is reaped, before its pipes close).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from typing import Any, Mapping, Sequence

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.proc import command_log, registry
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


class _RecordedPopen(subprocess.Popen):  # type: ignore[type-arg]  # bytes or text, as asked
    """A Popen whose end is recorded the first time poll() or wait() sees it."""

    command_id: str | None = None

    def poll(self) -> int | None:
        return self._ended(super().poll())

    def wait(self, timeout: float | None = None) -> int:
        code: int = super().wait(timeout)
        self._ended(code)
        return code

    def _ended(self, code: int | None) -> int | None:
        if code is not None and self.command_id is not None:
            command_id, self.command_id = self.command_id, None
            command_log.ended(command_id, code)
        return code


class _RecordedProtocol(asyncio.subprocess.SubprocessStreamProtocol):
    """asyncio's own protocol, which also records the child's end when it is reaped."""

    command_id: str | None = None
    transport: asyncio.SubprocessTransport | None = None

    def process_exited(self) -> None:
        super().process_exited()
        self.record_end()

    def record_end(self) -> None:
        code = self.transport.get_returncode() if self.transport is not None else None
        if code is not None and self.command_id is not None:
            command_id, self.command_id = self.command_id, None
            command_log.ended(command_id, code)


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
    full_env = child_env(env, tag, kind)
    try:
        proc = _RecordedPopen(list(argv), env=full_env, start_new_session=True, close_fds=True, **popen)
    except OSError as exc:
        raise WizardError(f"could not start {argv[0]}: {exc.strerror or exc}") from None
    proc.command_id = command_log.started(
        argv, cwd=popen.get("cwd"), env=full_env, pid=proc.pid, detached=kind == "detached"
    )
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
    full_env = child_env(env, tag, "owned")
    # asyncio.create_subprocess_exec, spelled out so that the protocol sees the child reaped
    loop = asyncio.get_running_loop()
    protocol = _RecordedProtocol(limit=kwargs.pop("limit", 2**16), loop=loop)
    transport, _ = await loop.subprocess_exec(
        lambda: protocol, *argv, env=full_env, start_new_session=True, **kwargs
    )
    protocol.transport = transport
    proc = asyncio.subprocess.Process(transport, protocol, loop)
    protocol.command_id = command_log.started(argv, cwd=kwargs.get("cwd"), env=full_env, pid=proc.pid)
    protocol.record_end()  # a child that ended before this line: its end now
    return AsyncSpawned(proc, tag, graces, register)


def run_captured(
    argv: Sequence[str],
    *,
    timeout_s: float,
    stdin_text: str | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """subprocess.run(argv, capture_output=True, text=True) as a child of the service (recorded,
    registered, in its own session): a short question to another program (the trainer's schema, W&B's
    login). WizardError when it cannot start; subprocess.TimeoutExpired once it is stopped."""
    stdin = subprocess.PIPE if stdin_text is not None else subprocess.DEVNULL
    out = subprocess.PIPE
    child = spawn(argv, env=env, cwd=cwd, stdin=stdin, stdout=out, stderr=out, text=True)
    try:
        stdout, stderr = child.popen.communicate(stdin_text, timeout=timeout_s)
    except BaseException:
        child.stop_blocking()  # a timeout or an interrupt: nothing of it runs on
        raise
    child.release()
    return subprocess.CompletedProcess(list(argv), child.popen.returncode, stdout, stderr)
