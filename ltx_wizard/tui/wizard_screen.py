"""The base of the wizard's screens: `self.app` typed as the wizard's App, so screens reach the
state and the App's roles through typed members. The App is imported for types only: at run time
it imports the screens, not the reverse (pyproject.toml's `tui-app-on-top` contract)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.screen import Screen

from ltx_wizard.core.base.phases import Phase

if TYPE_CHECKING:
    from ltx_wizard.tui.app import WizardApp


class WizardScreen(Screen):
    # The phase this screen shows (core/base/phases.py): its step bar and F1 title are drawn from it.
    PHASE: ClassVar[Phase]

    if TYPE_CHECKING:

        @property
        def app(self) -> WizardApp: ...  # type: ignore[override]  # Textual's App, narrowed to the wizard's

    @property
    def phase(self) -> Phase:
        """The phase on screen now; a screen that serves two phases says which (Preprocess)."""
        return self.PHASE

    def leave(self) -> None:
        """Back to the screen below, once: a burst of Escapes pops this screen, not the ones
        under it too (Textual's pop_screen pops whatever is on top). An Escape that arrives
        before this screen finished mounting is ignored: popped half-built, its widgets (and
        Textual's Header) would be queried after removal."""
        if self.is_current and self.is_mounted and len(self.app.screen_stack) > 2:
            self.app.pop_screen()
