"""The one registry of live child groups, and the wizard's own exit taking every one with it.

Every child started through the service (spawn.py, child.py) is registered when it starts and
forgotten once nothing of it is left; a signal to the wizard (signals.py) stops what is still
registered, and interpreter exit SIGKILLs it. Detached children (a training the user started)
are never registered: they are meant to outlive the wizard.
"""

from __future__ import annotations

import asyncio
import atexit
from typing import Protocol


class Live(Protocol):
    """What the registry asks of a live child."""

    async def stop(self) -> object: ...

    def stop_blocking(self) -> None: ...

    def kill_now(self) -> None: ...


_LIVE: dict[int, Live] = {}  # id(child) -> child, until nothing of it is left


def register(child: Live) -> None:
    _LIVE[id(child)] = child


def forget(child: Live) -> None:
    _LIVE.pop(id(child), None)


def live() -> list[Live]:
    return list(_LIVE.values())


async def stop_all() -> None:
    """Stop every live child by the stop rule, side by side, and wait until each is gone."""
    await asyncio.gather(*(child.stop() for child in live()), return_exceptions=True)


def stop_all_blocking() -> None:
    """stop_all without an event loop (a signal handler in a command that runs none)."""
    for child in live():
        child.stop_blocking()


def kill_all_now() -> None:
    """SIGKILL every registered child at once: the last resort when there is no time to wait."""
    for child in live():
        child.kill_now()


atexit.register(kill_all_now)
