"""What the Paths screen's check worker computes besides the plan's own checks: the validation
section's verdict, the checkout's recipes, and a large dataset's reading progress as messages."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from textual.message import Message
from textual.message_pump import MessagePump

from ltx_wizard.core.plan.plan_request import PlanRequest


def form_text(value: object) -> str:
    """A request field as the form shows it ("" for not given)."""
    return "" if value is None else str(value)


def validation_form_for(draft: PlanRequest):
    """What the validation section shows for this draft (core/validation/form.py)."""
    from ltx_wizard.core.validation.form import ValidationForm, validation_form

    try:
        return validation_form(
            form_text(draft.trainer_root),
            draft.recipe,
            form_text(draft.data_root),
            [str(m) for m in draft.validation_media],
            draft.validation_prompts,
            draft.validation,
        )
    except Exception as exc:  # the section must not break the form: say it in its line
        return ValidationForm(error=f"cannot read the recipe's validation: {exc}")


def checkout_recipes(trainer_root: str) -> tuple[tuple[str, str], ...]:
    """(name, modes) of the checkout's recipes, t2v first; () while no checkout is readable."""
    if not trainer_root:
        return ()
    from ltx_wizard.core.inputs.checkout import find_checkout
    from ltx_wizard.core.base.errors import WizardError
    from ltx_wizard.core.inputs.recipes import list_recipes

    try:
        checkout = find_checkout(trainer_root)
    except (WizardError, OSError):
        return ()
    return tuple((r.name, r.modes) for r in list_recipes(checkout.trainer_dir / "configs"))


@dataclass
class ClipsProgress(Message):
    text: str
    cancel: threading.Event  # the check's: a newer check's progress has a new one

    def can_replace(self, message: Message) -> bool:
        """The same check's later reading stands for this one."""
        return isinstance(message, ClipsProgress) and message.cancel is self.cancel


class ClipsProgressReporter:
    """The dataset check's progress as a message, at most a few a second (it runs in a thread)."""

    def __init__(self, screen: MessagePump, cancel: threading.Event) -> None:
        self.screen, self.cancel, self.last = screen, cancel, 0.0

    def __call__(self, what: str, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self.last < 0.25:
            return
        self.last = now
        self.screen.post_message(ClipsProgress(f"{what}: {done} of {total}", self.cancel))
