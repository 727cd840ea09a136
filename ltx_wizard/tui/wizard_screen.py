"""The base of the wizard's screens: `self.app` typed as the WizardHost interface (host.py), so
screens reach the state and the App's roles through typed members, without importing the App."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.screen import Screen

if TYPE_CHECKING:
    from ltx_wizard.tui.host import WizardHost


class WizardScreen(Screen):
    if TYPE_CHECKING:

        @property
        def app(self) -> WizardHost: ...  # type: ignore[override]  # narrows Textual's App to the wizard's

    def leave(self) -> None:
        """Back to the screen below, once: a burst of Escapes pops this screen, not the ones
        under it too (Textual's pop_screen pops whatever is on top). An Escape that arrives
        before this screen finished mounting is ignored: popped half-built, its widgets (and
        Textual's Header) would be queried after removal."""
        if self.is_current and self.is_mounted and len(self.app.screen_stack) > 2:
            self.app.pop_screen()
