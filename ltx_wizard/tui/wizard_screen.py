"""The base of the wizard's screens: `self.app` typed as the WizardApp, so screens reach the
state and the app's roles through typed members instead of untyped attribute lookups."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.screen import Screen

if TYPE_CHECKING:
    from ltx_wizard.tui.app import WizardApp


class WizardScreen(Screen):
    if TYPE_CHECKING:

        @property
        def app(self) -> WizardApp: ...
