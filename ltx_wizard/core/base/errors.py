"""Errors that carry their own exit code and a one-line, user-facing message.

The CLI turns every `WizardError` into `ltx-wizard: <message>` on stderr and its exit code;
nothing the user typed should ever surface as a traceback.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILURE = 1  # runtime failure (driver, trainer, I/O)
EXIT_USAGE = 2  # bad input or usage
EXIT_GATED = 3  # stopped by the minimum-VRAM gate
EXIT_STOPPED = 130  # stopped by the user (Ctrl-C, or a no where a command asks), as a shell says


class WizardError(Exception):
    """A failure with a one-line message that already says what to do next."""

    exit_code = EXIT_FAILURE

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class UsageError(WizardError):
    """The user's input is wrong (bad path, bad flag value)."""

    exit_code = EXIT_USAGE


class GateStop(WizardError):
    """The minimum-VRAM gate stopped a command that would have gone on."""

    exit_code = EXIT_GATED


class UserStop(WizardError):
    """The user stopped the command (answered no where it asks): exit 130, as Ctrl-C."""

    exit_code = EXIT_STOPPED
