"""One line per running trial: `trial 3 · GPU 1 · training · step 12/40 · 1:05`.

The rows come from the App's tracker (core/autotune/outputs/live_rows.py), which the engine's events
keep current; this widget only reads it, on an interval timer so the elapsed clocks tick between
events, and at once when the screen says an event landed. Hidden while no trial runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from rich.text import Text
from textual.widgets import Static

from ltx_wizard.core.autotune.outputs.live_rows import SEP, more_text

if TYPE_CHECKING:
    from ltx_wizard.core.autotune.outputs.live_rows import RunningRow

TICK_S = 0.5  # under a second: the clocks never skip one
MAX_ROWS = 8


def row_budget(height: int) -> int:
    """Rows that fit beside the rest of the Autotune screen (its table and log at their fullest
    take ~20 lines): 2 at 24 lines, MAX_ROWS on a tall terminal."""
    return max(1, min(MAX_ROWS, (height - 20) // 2))


def shown_lines(rows: list[RunningRow], budget: int) -> list[tuple[str, ...]]:
    """Each line's words: the rows that fit, then one line naming the rest."""
    if len(rows) <= budget:
        return [row.parts for row in rows]
    keep = max(budget - 1, 0)
    return [row.parts for row in rows[:keep]] + [(more_text(rows[keep:]),)]


def lines_text(lines: list[tuple[str, ...]]) -> Text:
    """The lines with the trial named in bold; a line too long for the terminal ends in "…"."""
    text = Text(no_wrap=True, overflow="ellipsis", end="")
    for i, (who, *rest) in enumerate(lines):
        if i:
            text.append("\n")
        text.append(who, style="bold")
        for part in rest:
            text.append(SEP, style="dim")
            text.append(part)
    return text


class TrialPhases(Static):
    def __init__(self, rows: Callable[[], list[RunningRow]], *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self._rows = rows
        self._shown: list[str] = []

    def on_mount(self) -> None:
        self.display = False
        self.refresh_rows()
        self.set_interval(TICK_S, self.refresh_rows)

    def refresh_rows(self) -> None:
        """Show the rows as they are now; nothing is redrawn when no clock or step moved."""
        lines = shown_lines(self._rows(), row_budget(self.app.size.height))
        plain = [SEP.join(words) for words in lines]
        if plain == self._shown:
            return
        self._shown = plain
        self.update(lines_text(lines))
        self.display = bool(lines)

    @property
    def lines(self) -> list[str]:
        """What the rows read now (tests)."""
        return list(self._shown)
