"""The live trial groups, and the wizard's own exit taking every one of them down with it.

A TrialProcess (process.py) registers its group here when it starts and leaves once the whole
group is gone; a signal to the wizard (SIGINT, SIGHUP from an SSH drop, SIGTERM) or interpreter
exit stops or SIGKILLs whatever is still registered.
"""

from __future__ import annotations

import asyncio
import atexit
import inspect
import os
import signal
from typing import Awaitable, Callable, Literal, Protocol

StopReason = Literal["oom", "timeout", "cancelled"]


class TrialProcess(Protocol):
    """What the registry asks of process.py's TrialProcess (which imports this module)."""

    async def stop(self, reason: StopReason = "cancelled") -> object: ...

    def kill_now(self) -> None: ...


_LIVE: dict[int, TrialProcess] = {}  # pgid -> trial, until its whole group is gone


def register(pgid: int, trial: TrialProcess) -> None:
    _LIVE[pgid] = trial


def forget(pgid: int) -> None:
    _LIVE.pop(pgid, None)


def live_trials() -> list[TrialProcess]:
    return list(_LIVE.values())


async def stop_all(reason: StopReason = "cancelled") -> None:
    """Stop every live trial group and wait until each is gone."""
    await asyncio.gather(*(t.stop(reason) for t in live_trials()), return_exceptions=True)


def kill_all_now() -> None:
    """SIGKILL every registered group at once: the last resort when there is no time to wait."""
    for trial in list(_LIVE.values()):
        trial.kill_now()


atexit.register(kill_all_now)

SignalCallback = Callable[[int], "Awaitable[None] | None"]


def install_signal_handlers(
    loop: asyncio.AbstractEventLoop, on_signal: SignalCallback | None = None
) -> Callable[[], None]:
    """On SIGINT, SIGHUP or SIGTERM: stop every trial group, then call on_signal(signum).

    Without on_signal the wizard then dies of that same signal (default action), as a shell
    expects. A second signal while stopping SIGKILLs every group at once. Returns an uninstaller.
    """
    sigs = (signal.SIGINT, signal.SIGHUP, signal.SIGTERM)
    pending: list[asyncio.Task[None]] = []

    async def _shutdown(signum: int) -> None:
        await stop_all("cancelled")
        if on_signal is not None:
            result = on_signal(signum)
            if inspect.isawaitable(result):
                await result
            return
        uninstall()
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    def _handler(signum: int) -> None:
        if pending and not pending[0].done():
            kill_all_now()
            return
        pending[:] = [loop.create_task(_shutdown(signum))]

    for sig in sigs:
        loop.add_signal_handler(sig, _handler, sig)

    def uninstall() -> None:
        for sig in sigs:
            loop.remove_signal_handler(sig)

    return uninstall
