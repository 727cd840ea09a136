"""A child whose output the wizard reads line by line (a trainer trial, a render): started through
the service (spawn.py), its lines streamed, stopped by the one rule, never left behind.

Lines reach the caller through the `on_line` callback (sync or async), one at a time and in
arrival order across stdout and stderr, each stamped with `time.monotonic()` when its newline
arrived: step times are measured from those stamps, not from what the trainer prints.
Every live child sits in the registry (registry.py) so that a signal to the wizard (SIGINT,
SIGHUP from an SSH drop, SIGTERM) or interpreter exit takes it down with it. Ranks that torchrun
put in sessions of their own are tracked as the child's descendants (tree.py) and taken down too
(stop.py: the launcher gets `grace_s`, 30 s by default, after SIGTERM to stop them itself).
"""

from __future__ import annotations

import asyncio
import inspect
import os
import time
from dataclasses import dataclass
from typing import Awaitable, Callable, Literal, Mapping, Sequence, TypeAlias

from ltx_wizard.core.proc import registry
from ltx_wizard.core.proc.lines import MAX_LINE_BYTES, LineSplitter, decode_line
from ltx_wizard.core.proc.spawn import spawn_async
from ltx_wizard.core.proc.stop import TRAINER_GRACES, kill_now, take_down, take_down_blocking
from ltx_wizard.core.proc.tree import RankTracker

StopReason = Literal["oom", "timeout", "cancelled"]
Stream = Literal["stdout", "stderr"]
EndedBy = Literal["exit", "timeout", "cancelled", "stopped"]

_CHUNK = 64 * 1024
# Lines travel in one batch per read (a queue operation per line cost more than parsing it).
# Bounded: a consumer that falls behind back-pressures the child instead of filling our memory.
_QUEUE_BATCHES = 16
_SLICE_S = 0.004  # the dispatcher hands the event loop back this often (keys, paints, timers)
_PAUSE_S = 0.004  # ... for this long: at most half the loop goes to a flood, keys get the rest
# Right after a key press the UI has a dialog or a screen to build and paint, which takes many
# turns of the loop: for this long the pauses are longer, so the flood gets a small share only.
UI_PRIORITY_S = 0.15
_UI_PAUSE_S = 0.02
_ui_priority_until = 0.0


def favour_ui(seconds: float = UI_PRIORITY_S) -> None:
    """A person just pressed a key: trial output waits more for the next `seconds`."""
    global _ui_priority_until
    _ui_priority_until = time.monotonic() + seconds


_POLL_S = 0.05  # how often a dying leader is re-checked
_TRACK_S = 0.5  # how often a running child's process tree is walked for new ranks
TEARDOWN_GRACE_S = TRAINER_GRACES.term_s
_DRAIN_WAIT_S = 2.0  # after the group is gone, the longest we wait for pipes to reach EOF
_FORCED_ENV = {"PYTHONUNBUFFERED": "1", "COLUMNS": "250"}  # live lines, no rich wrapping at 80


@dataclass(frozen=True)
class OutputLine:
    text: str
    stream: Stream
    t: float  # time.monotonic() when the line was complete
    truncated: bool = False  # True when the line was longer than the cap and was cut


_Batches: TypeAlias = "asyncio.Queue[list[OutputLine] | None]"  # lines by read, None: the end


@dataclass(frozen=True)
class ProcessResult:
    returncode: int | None  # negative: killed by that signal
    ended_by: EndedBy
    wall_s: float
    started_at: float  # time.time() at launch
    pid: int
    stop_reason: StopReason | None = None


LineCallback = Callable[[OutputLine], "Awaitable[None] | None"]
_ENDED_BY: dict[str, EndedBy] = {"timeout": "timeout", "cancelled": "cancelled", "oom": "stopped"}


class ChildProcess:
    """One child: `await start()`, then `await wait()`; `await stop(reason)` from anywhere."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        on_line: LineCallback | None = None,
        idle_timeout_s: float | None = 900.0,
        max_wall_s: float | None = None,
        grace_s: float = TEARDOWN_GRACE_S,
        max_line_bytes: int = MAX_LINE_BYTES,
        session: str | None = None,
    ) -> None:
        self.argv = [str(a) for a in argv]
        self.cwd = cwd
        self.env = {**os.environ, **(env or {}), **_FORCED_ENV}
        self.session = session  # tags.py: the session whose reaper and sweeps find it
        self.on_line = on_line
        self.idle_timeout_s = idle_timeout_s
        self.max_wall_s = max_wall_s
        self.graces = TRAINER_GRACES.with_term(grace_s)
        self.max_line_bytes = max_line_bytes
        self.last_output_t: float | None = None  # monotonic time of the last byte read
        self.callback_error: BaseException | None = None
        self._proc: asyncio.subprocess.Process | None = None
        self._t0 = self._started_at = 0.0
        self._stop_reason: StopReason | None = None
        self._kill_task: asyncio.Task[None] | None = None
        self._main_task: asyncio.Task[ProcessResult] | None = None
        self._dispatcher: asyncio.Task[None] | None = None
        self._result: ProcessResult | None = None
        self._delivered = 0  # lines taken off the queue, to tell a slow consumer from a stuck pipe
        self.ranks: RankTracker | None = None  # every process of the trial, set at start()

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc else None

    @property
    def running(self) -> bool:
        return self._proc is not None and self._result is None

    async def start(self) -> None:
        if self._proc is not None:
            raise RuntimeError("a ChildProcess starts only once")
        self._started_at = time.time()
        self._t0 = self.last_output_t = time.monotonic()
        pipe = asyncio.subprocess.PIPE
        spawned = await spawn_async(
            self.argv,
            env=self.env,
            session=self.session,
            register=False,
            cwd=self.cwd,
            stdout=pipe,
            stderr=pipe,
        )
        self._proc, self.ranks = spawned.proc, spawned.tree
        registry.register(self)
        self._main_task = asyncio.ensure_future(self._supervise())

    async def run(self) -> ProcessResult:
        await self.start()
        return await self.wait()

    async def wait(self) -> ProcessResult:
        if self._main_task is None:
            raise RuntimeError("ChildProcess.wait() before start()")
        result = await asyncio.shield(self._main_task)
        if self.callback_error is not None:
            raise self.callback_error
        return result

    async def stop(self, reason: StopReason = "cancelled") -> ProcessResult | None:
        """The stop rule (stop.py) on the child, ranks outside its group too; idempotent. None if never started, or when called from on_line (the stop
        goes on; wait() has the result)."""
        if self._proc is None:
            return None
        if self._stop_reason is None and self._proc.returncode is None:
            self._stop_reason = reason
        self._kill()
        if asyncio.current_task() is self._dispatcher:
            return None  # called from on_line: waiting here would wait on ourselves
        assert self._main_task is not None
        return await asyncio.shield(self._main_task)

    def _kill(self) -> asyncio.Task[None]:
        if self._kill_task is None:
            self._kill_task = asyncio.ensure_future(self._kill_group())
        return self._kill_task

    async def _kill_group(self) -> None:
        assert self._proc is not None and self.ranks is not None
        await take_down(self.ranks, launcher_gone=self._proc.returncode is not None, graces=self.graces)

    def stop_blocking(self) -> None:
        """The stop rule from a thread with no event loop (registry.stop_all_blocking)."""
        if self._proc is not None and self.ranks is not None:
            self._stop_reason = self._stop_reason or "cancelled"
            take_down_blocking(
                self.ranks, launcher_gone=self._proc.returncode is not None, graces=self.graces
            )

    async def _track_ranks(self) -> None:
        """Walk the child's tree while it runs, so ranks are known before the launcher dies."""
        assert self.ranks is not None
        while True:
            await asyncio.to_thread(self.ranks.refresh)
            await asyncio.sleep(_TRACK_S)

    async def _supervise(self) -> ProcessResult:
        proc = self._proc
        assert proc is not None and proc.stdout is not None and proc.stderr is not None
        queue: _Batches = asyncio.Queue(_QUEUE_BATCHES)
        readers = [
            asyncio.ensure_future(self._read(proc.stdout, "stdout", queue)),
            asyncio.ensure_future(self._read(proc.stderr, "stderr", queue)),
        ]
        self._dispatcher = dispatcher = asyncio.ensure_future(self._dispatch(queue))
        watchdog = asyncio.ensure_future(self._watchdog())
        tracker = asyncio.ensure_future(self._track_ranks())
        try:
            returncode = await self._leader_exit(proc)
            end_t = time.monotonic()
            # The leader is gone, but workers it forked may still be alive and holding the pipes.
            await self._kill()
            await self._drain(readers)
        except asyncio.CancelledError:
            self.kill_now()  # the loop is going away: no time for grace
            raise
        finally:
            watchdog.cancel()
            tracker.cancel()
            for task in readers:
                task.cancel()
            await asyncio.gather(*readers, watchdog, tracker, return_exceptions=True)
            await queue.put(None)
            await dispatcher
            if self.ranks is None or not self.ranks.alive():
                registry.forget(self)  # else atexit still has it to SIGKILL
        reason = self._stop_reason
        ended_by = _ENDED_BY[reason] if reason else "exit"
        self._result = ProcessResult(
            returncode, ended_by, end_t - self._t0, self._started_at, proc.pid, reason
        )
        return self._result

    def kill_now(self) -> None:
        """SIGKILL the group and every rank outside it, without waiting."""
        if self.ranks is not None:
            kill_now(self.ranks)

    @staticmethod
    async def _leader_exit(proc: asyncio.subprocess.Process) -> int:
        # proc.wait() also waits for the pipes to close, which a surviving grandchild holding them
        # would delay forever; returncode is set as soon as the leader itself is reaped.
        waiter = asyncio.ensure_future(proc.wait())
        try:
            while proc.returncode is None and not waiter.done():
                await asyncio.wait({waiter}, timeout=_POLL_S)
        finally:
            waiter.cancel()
        assert proc.returncode is not None  # the loop ends once the leader is reaped
        return proc.returncode

    async def _drain(self, readers: list[asyncio.Task[None]]) -> None:
        # Wait for EOF while output keeps moving; a pipe held open by a process that escaped the
        # group (its own setsid) would otherwise keep us here forever.
        while True:
            before = (self.last_output_t, self._delivered)
            _, pending = await asyncio.wait(readers, timeout=_DRAIN_WAIT_S)
            if not pending or (self.last_output_t, self._delivered) == before:
                return

    async def _read(self, reader: asyncio.StreamReader, stream: Stream, queue: _Batches) -> None:
        split = LineSplitter(self.max_line_bytes)  # lines.py: the one way output becomes lines
        while True:
            chunk = await reader.read(_CHUNK)
            now = time.monotonic()
            if not chunk:
                break
            self.last_output_t = now
            batch = [self._line(raw, stream, now, cut) for raw, cut in split.feed(chunk)]
            if batch:
                await queue.put(batch)
            # Reading a full pipe never suspends; yield so keys and timers still get their turn.
            await asyncio.sleep(0)
        if (rest := split.end()) is not None:
            await queue.put([self._line(rest[0], stream, time.monotonic(), rest[1])])

    @staticmethod
    def _line(raw: bytes, stream: Stream, t: float, truncated: bool) -> OutputLine:
        return OutputLine(text=decode_line(raw), stream=stream, t=t, truncated=truncated)

    async def _dispatch(self, queue: _Batches) -> None:
        # queue.get() never suspends while lines are waiting: during a flood this loop would keep
        # the event loop for as long as the trainer writes. Work in time slices with pauses in
        # between instead: a key and the paint it causes take many turns of the loop, and a bare
        # yield would hand each of those turns another slice of parsing (measured in
        # benchmarks/bench_flood.py: a pause halves key latency under a flood; standing aside only
        # while the loop looked busy did not). Readers keep reading meanwhile; the trainer waits
        # only on a full queue.
        slice_end = time.monotonic() + _SLICE_S
        while (batch := await queue.get()) is not None:
            for line in batch:
                if (now := time.monotonic()) >= slice_end:
                    await asyncio.sleep(_UI_PAUSE_S if now < _ui_priority_until else _PAUSE_S)
                    slice_end = time.monotonic() + _SLICE_S
                self._delivered += 1
                if self.on_line is None or self.callback_error is not None:
                    continue  # keep draining so the child never blocks on a full pipe
                try:
                    result = self.on_line(line)
                    if inspect.isawaitable(result):
                        await result
                except Exception as exc:  # a bug in the consumer must not leave the child running
                    self.callback_error = exc
                    self._stop_reason = self._stop_reason or "cancelled"
                    self._kill()

    async def _watchdog(self) -> None:
        while True:
            now = time.monotonic()
            waits = []
            if self.idle_timeout_s is not None:
                waits.append((self.last_output_t or self._t0) + self.idle_timeout_s - now)
            if self.max_wall_s is not None:
                waits.append(self._t0 + self.max_wall_s - now)
            if not waits:
                return
            if min(waits) <= 0:
                break
            await asyncio.sleep(min(waits))
        if self._proc is not None and self._proc.returncode is None:
            self._stop_reason = self._stop_reason or "timeout"
        self._kill()
