"""The prepare flow's questions as dialogs and its lines and progress as messages, for the
Prepare screen (screens/prepare/__init__.py): the flow (core/prepare/prepare_session.py) runs in the screen's
worker, where each dialog is awaited; lines and progress may come from a probe thread, so they
travel as messages (progress coalesced: only the latest waits).
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message
from textual.screen import Screen

TOPICS = {"rotate": "Rotated clips", "scenes": "Scene split", "leave-out": "Clips without a caption"}


@dataclass
class PrepareLine(Message):
    text: str


@dataclass
class PrepareProgress(Message):
    stage: str
    done: int
    total: int  # 0: not known (a bar that moves); -1: paused on a question

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, PrepareProgress)


@dataclass
class PrepareEnded(Message):
    result: object | None  # core.prepare.request.PrepareResult
    error: str | None


class ScreenAsker:
    """The flow's questions as dialogs (awaited in the screen's worker), its lines as messages."""

    def __init__(self, screen: Screen) -> None:
        self.screen = screen

    def _waiting(self, what: str) -> None:
        self.screen.post_message(PrepareProgress(f"waiting for your answer: {what}", 0, -1))

    async def confirm(self, question: str, *, topic: str) -> bool:
        from ltx_wizard.tui.dialogs.confirm import ConfirmDialog

        dialog = ConfirmDialog(question, title=TOPICS.get(topic, "A question"))
        self._waiting(dialog.title_text.lower())
        # mypy matches none of Textual's push_screen overloads here (it reads the literal
        # wait_for_dismiss=True as bool); the call is the wait_for_dismiss=True one
        return bool(
            await self.screen.app.push_screen(  # type: ignore[call-overload]
                dialog, wait_for_dismiss=True
            )
        )

    async def approve_captions(self, shown: list[tuple[str, str]]) -> bool | str:
        from ltx_wizard.tui.dialogs.spot_check import SpotCheckDialog

        for clip, caption in shown:
            self.say(f"spot check, {clip}: {caption}")
        self._waiting("the caption spot check")
        return await self.screen.app.push_screen(SpotCheckDialog(shown), wait_for_dismiss=True)

    async def choose_holdout(self, question: str, total: int) -> int:
        from ltx_wizard.tui.dialogs.holdout_ask import HoldoutDialog

        self._waiting("held-out samples")
        return int(
            await self.screen.app.push_screen(  # type: ignore[call-overload]  # as above
                HoldoutDialog(question), wait_for_dismiss=True
            )
            or 0
        )

    def say(self, line: str) -> None:
        """Cleaned as the command line's say is (commands/prepare.py): a line may quote a caption."""
        from ltx_wizard.core.base.text_safety import clean_block

        self.screen.post_message(PrepareLine(clean_block(line)))

    def progress(self, stage: str, done: int, total: int) -> None:
        self.screen.post_message(PrepareProgress(stage, done, total))
