"""A desktop notification from the TUI: the escape sequences (core/monitor/notify_escape.py) go
to the real terminal through the App's driver, as Textual 8.2.8 sends its own OSC 52 and BEL
(App.copy_to_clipboard, App.bell: `self._driver.write`), between two frames on the driver's
writer thread; never into a widget, whose text Textual would render (and strip) in its buffer.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ltx_wizard.core.base.text_safety import clean_text
from ltx_wizard.core.monitor.notify_ending import Ending
from ltx_wizard.core.monitor.notify_escape import sequences

if TYPE_CHECKING:
    from textual.app import App


def send_ping(app: App, ending: Ending) -> None:
    """On the event loop. The headless driver of a test writes nowhere (a pilot test captures)."""
    driver = app._driver
    if driver is not None:
        driver.write(sequences(clean_text(ending.text), os.environ))  # made safe again inside
