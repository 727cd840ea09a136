"""The App's signal role: the one handler of core/proc/signals.py, on the App's loop. SIGHUP (the
SSH connection dropped), SIGTERM and SIGINT stop every live child (trials, prepare's scripts and
captioner server, preprocessing, setup's steps) first, then the wizard leaves with 128 + the
signal. Without this, a hang-up would kill the wizard and orphan its children, each in a session
of its own."""

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
    from ltx_wizard.core.proc.signals import exit_code, install_on_loop

    async def leave(signum: int) -> None:
        # Every child is stopped by now; let the engine log the cancelled trial, so that a
        # resume knows where it stood (its worker's end is the event waited for, bounded).
        app.autotune.cancel()
        await app.autotune.stopped(LOG_CANCELLED_WAIT_S)
        if signum == signal.SIGHUP and not app.is_headless:
            # The terminal is gone: Textual's orderly shutdown would block forever writing the
            # terminal reset to it. Everything of ours is already stopped and flushed.
            app.remove_demo_folder()
            os._exit(exit_code(signum))
        app.exit(return_code=exit_code(signum))

    try:
        return install_on_loop(asyncio.get_running_loop(), leave)
    except (NotImplementedError, RuntimeError, ValueError):  # no signals here (not main thread)
        return None
