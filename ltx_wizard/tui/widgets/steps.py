"""The phase bar under the header: where the user is in the six steps."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

PHASES = ("Probe", "Paths", "Plan", "Autotune", "Done", "Monitor")
AUTOTUNE = PHASES.index("Autotune") + 1


class StepBar(Static):
    """`1 Probe › 2 Paths › …` with the current phase bold and bracketed (readable without colour)."""

    def __init__(self, current: int, **kwargs) -> None:
        super().__init__(**kwargs)
        self.current = current

    def on_mount(self) -> None:
        self.update(self.render_steps(self._tuned()))

    def _tuned(self) -> bool:
        """Autotune ended for this run: its record (autotune.json) is there. Only asked past it."""
        if self.current <= AUTOTUNE:
            return True
        from ltx_wizard.core.plan.next_steps import is_tuned

        state = getattr(self.app, "state", None)  # the wizard's App (a widget names no App type)
        run_dir = getattr(self.screen, "run_dir", None) or getattr(state, "run_dir", None)
        return run_dir is not None and is_tuned(run_dir)

    def render_steps(self, tuned: bool = True) -> Text:
        text = Text()
        for number, name in enumerate(PHASES, start=1):
            if number > 1:
                text.append(" › ", style="dim")
            label = f"{number} {name}"
            if number == self.current:
                text.append(f"[{label}]", style="bold reverse")
            elif number == AUTOTUNE and not tuned:  # "Approve, skip": not done, passed by
                text.append(f"{label} skipped", style="dim")
            elif number < self.current:
                text.append(f"{label} ✓", style="")
            else:
                text.append(label, style="dim")
        return text
