"""The base of every dialog: it answers once.

Textual's `dismiss` pops whatever screen is on top. A burst of keys (four Enters in the F2
picker, a key and a click together) reaches the dialog again after its first answer, and each
further dismiss popped a screen below it, down to "Can't pop screen". Here a second answer, or
an answer from a dialog that is no longer the top screen, does nothing.
"""

from __future__ import annotations

from typing import TypeVar

from textual.await_complete import AwaitComplete
from textual.screen import ModalScreen

ResultType = TypeVar("ResultType")


class OnceModal(ModalScreen[ResultType]):
    answered = False

    def dismiss(self, result: ResultType | None = None) -> AwaitComplete:
        if self.answered or not self.is_current:
            return AwaitComplete.nothing()
        self.answered = True
        return super().dismiss(result)
