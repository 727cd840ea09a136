"""The phase bar under the header: where the user is in the six steps."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

PHASES = ("Probe", "Paths", "Plan", "Autotune", "Done", "Monitor")


class StepBar(Static):
    """`1 Probe › 2 Paths › …` with the current phase bold and bracketed (readable without colour)."""

    def __init__(self, current: int, **kwargs) -> None:
        super().__init__(**kwargs)
        self.current = current

    def on_mount(self) -> None:
        self.update(self.render_steps())

    def render_steps(self) -> Text:
        text = Text()
        for number, name in enumerate(PHASES, start=1):
            if number > 1:
                text.append(" › ", style="dim")
            label = f"{number} {name}"
            if number == self.current:
                text.append(f"[{label}]", style="bold reverse")
            elif number < self.current:
                text.append(f"{label} ✓", style="")
            else:
                text.append(label, style="dim")
        return text
