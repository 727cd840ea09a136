"""The App's signal role: SIGHUP (the SSH connection dropped), SIGTERM and SIGINT stop every
trial's process group first, then the wizard leaves. Without this, a hang-up would kill the
wizard and orphan the trainer, which runs in a session of its own."""

from __future__ import annotations

import asyncio
import os
import signal
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from ltx_wizard.tui.app import WizardApp  # for types only: the App imports this module

LOG_CANCELLED_WAIT_S = 5.0  # the engine's moment to log the cancelled trial, for a resume


def watch_signals(app: WizardApp) -> Callable[[], None] | None:
    """Install the handlers on the running loop; returns their uninstaller, or None where there
    are no signals (not the main thread)."""
    from ltx_wizard.core.autotune.trials.live_groups import install_signal_handlers

    async def leave(signum: int) -> None:
        # The trial groups are stopped by now; let the engine log the cancelled trial, so that a
        # resume knows where it stood (its worker's end is the event waited for, bounded).
        app.autotune.cancel()
        await app.autotune.stopped(LOG_CANCELLED_WAIT_S)
        if signum == signal.SIGHUP and not app.is_headless:
            # The terminal is gone: Textual's orderly shutdown would block forever writing the
            # terminal reset to it. Everything of ours is already stopped and flushed.
            app.remove_demo_folder()
            os._exit(128 + signum)
        app.exit(return_code=128 + signum)

    try:
        return install_signal_handlers(asyncio.get_running_loop(), leave)
    except (NotImplementedError, RuntimeError, ValueError):  # no signals here (not main thread)
        return None
