"""Messages that workers post to the app and its screens.

Workers never touch widgets: they post one of these, and an `@on` handler on the event loop owns
the state change. Payloads are the core's own (frozen) models.
"""

from __future__ import annotations

from typing import Any

from textual.message import Message


class ProbeFinished(Message):
    """A probe ended: `result` is a ProbeResult, or `error` is the one-line reason it failed."""

    def __init__(self, result: Any | None, error: str | None) -> None:
        super().__init__()
        self.result = result
        self.error = error


class ChecksFinished(Message):
    """Live validation of the paths form: CheckItems, and the form values they were run on."""

    def __init__(self, items: list, values: dict[str, str], inspected: Any | None,
                 recipes: tuple[tuple[str, str], ...] = ()) -> None:
        super().__init__()
        self.items = items
        self.values = values
        self.inspected = inspected  # CheckpointInfo of the checkpoint field, when it parsed
        self.recipes = recipes  # (name, modes) of the checkout's recipes; () when none was read


class DiscoveryFinished(Message):
    def __init__(self, result: Any | None) -> None:
        super().__init__()
        self.result = result


class PlanPrepared(Message):
    """prepare_plan ended: a PlanDraft, or the one-line error."""

    def __init__(self, draft: Any | None, error: str | None) -> None:
        super().__init__()
        self.draft = draft
        self.error = error


class AutotuneEvent(Message):
    """One event of the autotune engine (anything but log lines, which go through a buffer)."""

    def __init__(self, event: Any) -> None:
        super().__init__()
        self.event = event


class AutotuneStopped(Message):
    """The autotune worker ended: the summary, or the one-line error that stopped it."""

    def __init__(self, summary: Any | None, error: str | None) -> None:
        super().__init__()
        self.summary = summary
        self.error = error
