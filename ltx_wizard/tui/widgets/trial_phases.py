"""One line per running trial: `trial 3 · GPU 1 · training · step 12/40 · 1:05`.

The rows come from the App's tracker (core/autotune/running_trials.py), which the engine's events
keep current; this widget only reads it, on an interval timer so the elapsed clocks tick between
events, and at once when the screen says an event landed. Hidden while no trial runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from rich.text import Text
from textual.widgets import Static

from ltx_wizard.core.autotune.running_trials import SEP

if TYPE_CHECKING:
    from ltx_wizard.core.autotune.running_trials import RunningRow

TICK_S = 0.5  # under a second: the clocks never skip one


def rows_text(rows: list[RunningRow]) -> Text:
    """The rows with the trial named in bold; a row too long for the terminal ends in "…"."""
    text = Text(no_wrap=True, overflow="ellipsis", end="")
    for i, row in enumerate(rows):
        if i:
            text.append("\n")
        who, *rest = row.parts
        text.append(who, style="bold")
        for part in rest:
            text.append(SEP, style="dim")
            text.append(part)
    return text


class TrialPhases(Static):
    def __init__(self, rows: Callable[[], list[RunningRow]], *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self._rows = rows
        self._shown: str | None = None

    def on_mount(self) -> None:
        self.refresh_rows()
        self.set_interval(TICK_S, self.refresh_rows)

    def refresh_rows(self) -> None:
        """Show the rows as they are now; nothing is redrawn when no clock or step moved."""
        rows = self._rows()
        plain = "\n".join(row.text for row in rows)
        if plain == self._shown:
            return
        self._shown = plain
        self.update(rows_text(rows))
        self.display = bool(rows)

    @property
    def lines(self) -> list[str]:
        """What the rows read now (tests)."""
        return self._shown.splitlines() if self._shown else []
