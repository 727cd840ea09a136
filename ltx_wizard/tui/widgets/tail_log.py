"""A bounded log view that always shows its newest lines.

Textual's Log follows the tail only while the view is already at the end; when the screen's layout
shrinks the log (a trial row added above it) the view is left behind and never catches up. The
trainer's full output is in the run folder, so this view's only job is the tail.
"""

from __future__ import annotations

from typing import Iterable

from textual import events
from textual.widgets import Log

from ltx_wizard.core.base.text_safety import clean_text


class TailLog(Log):
    def write_tail(self, lines: Iterable[str]) -> None:
        # Trainer output is outside text: escape sequences must not reach the terminal.
        self.write_lines((clean_text(line) for line in lines), scroll_end=False)
        self.follow()

    def follow(self) -> None:
        self.scroll_end(animate=False, immediate=True, x_axis=False)

    def on_resize(self, event: events.Resize) -> None:
        self.follow()
