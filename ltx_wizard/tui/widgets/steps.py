"""The step bar under the header, and its breadcrumbs: where the user is in the six steps, drawn
from the phase model (core/base/phases.py), never from a number a screen picks."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ltx_wizard.core.base.phases import AUTOTUNE_STEP, STEPS, Phase


def render_steps(phase: Phase, tuned: bool = True, width: int | None = None) -> Text:
    """`1 Box ✓ › [2 Data: Intent] › 3 Plan › …`: the current step bracketed with the phase it is
    in, the steps passed ticked, autotune passed by untuned said so. Where that is wider than
    `width`, the ticked steps furthest back lose their names first (`1 ✓`)."""
    current = phase.step.number
    shortened = 0
    while True:
        text = _bar(phase, tuned, shortened)
        if width is None or text.cell_len <= width or shortened >= current - 1:
            return text
        shortened += 1


def _bar(phase: Phase, tuned: bool, shortened: int) -> Text:
    current = phase.step.number
    text = Text()
    for step in STEPS:
        if step.number > 1:
            text.append(" › ", style="dim")
        label = f"{step.number} {step.name}"
        if step.number == current:
            text.append(f"[{phase.bar_label}]", style="bold reverse")
        elif step == AUTOTUNE_STEP and step.number < current and not tuned:  # "Approve, skip"
            text.append(f"{label} skipped", style="dim")
        elif step.number < current:
            text.append(f"{step.number} ✓" if step.number <= shortened else f"{label} ✓", style="")
        else:
            text.append(label, style="dim")
    return text


class StepBar(Static):
    """The bar of one phase, readable without colour (the current step bracketed)."""

    def __init__(self, phase: Phase, **kwargs) -> None:
        super().__init__(**kwargs)
        self.phase = phase
        self.tuned = True

    def on_mount(self) -> None:
        self.tuned = self._tuned()
        self.refresh()

    def _tuned(self) -> bool:
        """Autotune ended for this run: its record (autotune.json) is there. Only asked past it."""
        if self.phase.step.number <= AUTOTUNE_STEP.number:
            return True
        from ltx_wizard.core.plan.next_steps import is_tuned

        state = getattr(self.app, "state", None)  # the wizard's App (a widget names no App type)
        run_dir = getattr(self.screen, "run_dir", None) or getattr(state, "run_dir", None)
        return run_dir is not None and is_tuned(run_dir)

    def render(self) -> Text:
        return render_steps(self.phase, self.tuned, self.size.width or None)
