"""Messages that workers post to the app and its screens.

Workers never touch widgets: they post one of these, and an `@on` handler on the event loop owns
the state change. Payloads are the core's own (frozen) models. Messages are dataclasses (Textual's
Message sets itself up in `__post_init__`); a progress message that a newer one can stand for says
so in `can_replace`, and Textual drops it while both wait in the queue.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:  # pydantic models: not imported before autotune starts
    from ltx_wizard.core.autotune import events
    from ltx_wizard.core.tuning.results import AutotuneSummary


@dataclass
class ProbeFinished(Message):
    """A probe ended: `result` is a ProbeResult, or `error` is the one-line reason it failed."""

    result: Any | None
    error: str | None


@dataclass
class DemoReady(Message):
    """--demo's look-alike files are written (the probe screen's Continue waits for them), or
    `error` is the one-line reason they could not be."""

    error: str | None


@dataclass
class ChecksFinished(Message):
    """Live validation of the paths form: CheckItems, and the draft request they were run on."""

    items: list[Any]
    draft: Any
    inspected: Any | None  # CheckpointInfo of the checkpoint field, when it parsed
    # (name, modes) of the checkout's recipes; () when none was read
    recipes: tuple[tuple[str, str], ...] = ()


@dataclass
class DiscoveryFinished(Message):
    result: Any | None


@dataclass
class PlanPrepared(Message):
    """prepare_plan ended: a PlanDraft, or the one-line error."""

    draft: Any | None
    error: str | None


# bubble=False on each class (Textual sets `bubble` per subclass, True unless told): the screen
# that shows autotune is the only consumer.
@dataclass
class AutotuneMessage(Message, bubble=False):
    """One event of the autotune engine, posted to the Autotune screen; a subclass per event
    kind, so the screen handles each with `@on` (log lines go through a buffer instead)."""

    event: Any


class TrialStarted(AutotuneMessage, bubble=False):
    event: events.TrialStarted


class TrialProgress(AutotuneMessage, bubble=False):
    event: events.TrialProgress

    def can_replace(self, message: Message) -> bool:
        """A trial's later reading stands for this one (the screen shows the latest)."""
        return isinstance(message, TrialProgress) and message.event.index == self.event.index


class TrialPhase(AutotuneMessage, bubble=False):
    event: events.TrialPhase


class VramUpdate(AutotuneMessage, bubble=False):
    event: events.VramUpdate

    def can_replace(self, message: Message) -> bool:
        """A later reading of the same GPUs stands for this one."""
        return isinstance(message, VramUpdate) and message.event.gpus == self.event.gpus


class TrialFinished(AutotuneMessage, bubble=False):
    event: events.TrialFinished


class ConfirmationStarted(AutotuneMessage, bubble=False):
    event: events.ConfirmationStarted


class ConfirmationFinished(AutotuneMessage, bubble=False):
    event: events.ConfirmationFinished


class AutotuneFinished(AutotuneMessage, bubble=False):
    event: events.AutotuneFinished


@dataclass
class AutotuneStopped(Message, bubble=False):
    """The autotune worker ended: the summary, or the one-line error that stopped it."""

    summary: AutotuneSummary | None
    error: str | None
