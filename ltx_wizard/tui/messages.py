"""Messages that workers post to the app and its screens.

Workers never touch widgets: they post one of these, and an `@on` handler on the event loop owns
the state change. Payloads are the core's own (frozen) models.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:  # pydantic models: not imported before autotune starts
    from ltx_wizard.core.autotune import events
    from ltx_wizard.core.tuning.results import AutotuneSummary


class ProbeFinished(Message):
    """A probe ended: `result` is a ProbeResult, or `error` is the one-line reason it failed."""

    def __init__(self, result: Any | None, error: str | None) -> None:
        super().__init__()
        self.result = result
        self.error = error


class DemoReady(Message):
    """--demo's look-alike files are written (the probe screen's Continue waits for them), or
    `error` is the one-line reason they could not be."""

    def __init__(self, error: str | None) -> None:
        super().__init__()
        self.error = error


class ChecksFinished(Message):
    """Live validation of the paths form: CheckItems, and the draft request they were run on."""

    def __init__(self, items: list, draft: Any, inspected: Any | None,
                 recipes: tuple[tuple[str, str], ...] = ()) -> None:
        super().__init__()
        self.items = items
        self.draft = draft
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


class AutotuneMessage(Message):
    """One event of the autotune engine, posted to the Autotune screen; a subclass per event
    kind, so the screen handles each with `@on` (log lines go through a buffer instead)."""

    bubble = False  # the screen that shows autotune is the only consumer

    def __init__(self, event: Any) -> None:
        super().__init__()
        self.event = event


class TrialStarted(AutotuneMessage):
    event: events.TrialStarted


class TrialProgress(AutotuneMessage):
    event: events.TrialProgress


class TrialPhase(AutotuneMessage):
    event: events.TrialPhase


class VramUpdate(AutotuneMessage):
    event: events.VramUpdate


class TrialFinished(AutotuneMessage):
    event: events.TrialFinished


class ConfirmationStarted(AutotuneMessage):
    event: events.ConfirmationStarted


class ConfirmationFinished(AutotuneMessage):
    event: events.ConfirmationFinished


class AutotuneFinished(AutotuneMessage):
    event: events.AutotuneFinished


class AutotuneStopped(Message):
    """The autotune worker ended: the summary, or the one-line error that stopped it."""

    bubble = False

    def __init__(self, summary: AutotuneSummary | None, error: str | None) -> None:
        super().__init__()
        self.summary = summary
        self.error = error
