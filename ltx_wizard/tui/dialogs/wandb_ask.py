"""W&B enabled in the config, and the login could not be read in the trainer's environment: ask
whether to keep it on (core/inputs/wandb_login.py). Never turned off silently."""

from __future__ import annotations

from dataclasses import dataclass
from textual.message import Message

from ltx_wizard.tui.dialogs.confirm import ConfirmDialog


@dataclass
class WandbAsk(Message):
    """Posted by the Summary screen's planning worker; answered on the loop."""

    question: str


def ask_wandb(screen, question: str) -> None:
    """Ask; the answer goes into the paths and the plan is prepared again with it."""

    def answered(keep: bool | None) -> None:
        screen.app.state.edit_request(wandb="on" if keep else "off")
        screen.prepare_again()

    screen.app.push_screen(
        ConfirmDialog(
            question.split(": answer with", 1)[0] + ".\nKeep W&B on for this run?",
            yes="Keep W&B on",
            no="Turn it off",
            title="W&B login unknown",
        ),
        answered,
    )
