"""The one signal handler, for the headless commands and the TUI alike: on SIGINT, SIGTERM or
SIGHUP (an SSH drop) every live child (registry.py) is stopped by the stop rule first, then the
wizard leaves with 128 + the signal (130 for Ctrl-C), as a shell reports it. Without this a
hang-up would kill the wizard and leave its children, each in a session of its own, running
under PID 1. A second signal while stopping SIGKILLs every child at once.

Two ways to wait, one rule: `install_blocking` for a command with no event loop running (the
handler runs in the main thread; it leaves by raising), `install_on_loop` where an event loop
runs (the TUI, autotune: the handler is a task, and `on_signal` says how to leave).
"""

from __future__ import annotations

import asyncio
import inspect
import os
import signal
from types import FrameType
from typing import Any, Awaitable, Callable

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.proc import registry

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
SignalCallback = Callable[[int], "Awaitable[None] | None"]


def exit_code(signum: int) -> int:
    return 128 + signum


class Stopped(WizardError):
    """SIGTERM or SIGHUP stopped the wizard: its children were stopped with it."""

    def __init__(self, signum: int) -> None:
        super().__init__(
            f"stopped by {signal.Signals(signum).name}: every process it had started was stopped with it"
        )
        self.exit_code = exit_code(signum)


def leave(signum: int) -> None:
    """The default way out: Ctrl-C as Python says it (KeyboardInterrupt: 'interrupted', 130),
    another signal as a Stopped error (128 + the signal)."""
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Stopped(signum)


def _restorer(previous: dict[signal.Signals, Any]) -> Callable[[], None]:
    def uninstall() -> None:
        for sig, handler in previous.items():  # None: not set from Python, the default then
            signal.signal(sig, signal.SIG_DFL if handler is None else handler)

    return uninstall


def install_blocking(on_signal: Callable[[int], None] | None = None) -> Callable[[], None]:
    """Handlers for a command with no running event loop: stop every live child, then
    on_signal(signum), or `leave` (raised in the main thread, where the command is). Returns an
    uninstaller that puts the previous handlers back. Main thread only (ValueError elsewhere)."""
    busy: list[int] = []

    def handler(signum: int, frame: FrameType | None) -> None:
        if busy:  # a second signal while stopping: no more waiting
            registry.kill_all_now()
            return
        busy.append(signum)
        try:
            registry.stop_all_blocking()
        finally:
            busy.clear()
        (on_signal or leave)(signum)

    previous = {sig: signal.getsignal(sig) for sig in SIGNALS}
    for sig in SIGNALS:
        signal.signal(sig, handler)
    return _restorer(previous)


async def _call(on_signal: SignalCallback, signum: int) -> None:
    result = on_signal(signum)
    if inspect.isawaitable(result):
        await result


def install_on_loop(
    loop: asyncio.AbstractEventLoop, on_signal: SignalCallback | None = None, *, notify_first: bool = False
) -> Callable[[], None]:
    """Handlers on the running loop: stop every live child (stop_all, side by side), then
    on_signal(signum), awaited when it is a coroutine; without it the wizard dies of that same
    signal (the default action: a shell says 128 + signum). Returns an uninstaller that puts the
    previous handlers back. Raises NotImplementedError, RuntimeError or ValueError where there
    are no signals (no main thread). `notify_first`: on_signal runs before the children are
    stopped (it cancels work whose own cleanup stops its child by the same rule, so the work
    ends as stopped, not as a child that failed)."""
    pending: list[asyncio.Task[None]] = []
    previous = {sig: signal.getsignal(sig) for sig in SIGNALS}

    async def shutdown(signum: int) -> None:
        if notify_first and on_signal is not None:
            await _call(on_signal, signum)
            await registry.stop_all()
            return
        await registry.stop_all()
        if on_signal is None:  # die of the same signal, as a shell expects (it says 128 + signum)
            uninstall()
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        await _call(on_signal, signum)

    def handler(signum: int) -> None:
        if pending and not pending[0].done():
            registry.kill_all_now()
            return
        pending[:] = [loop.create_task(shutdown(signum))]

    for sig in SIGNALS:
        loop.add_signal_handler(sig, handler, sig)

    def uninstall() -> None:
        for sig in SIGNALS:
            loop.remove_signal_handler(sig)
        _restorer(previous)()

    return uninstall
