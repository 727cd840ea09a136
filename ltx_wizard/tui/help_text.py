"""F1 help by a screen's or dialog's class name, for callers that name the class rather than hold
it (tests/test_eval_pipeline_modes.py). The texts live beside their screens and dialogs
(`F1_HELP`), and the help dialog reads them from the class: see dialogs/help.py."""

from __future__ import annotations

import importlib
import pkgutil

from ltx_wizard.tui.dialogs.help import GENERIC, Help, help_for_class


def help_for(name: str) -> Help:
    """The F1 help of the screen or dialog class called `name`; GENERIC when none is."""
    from ltx_wizard.tui import dialogs, screens

    for package in (screens, dialogs):
        for info in pkgutil.iter_modules(package.__path__):
            found = getattr(importlib.import_module(f"{package.__name__}.{info.name}"), name, None)
            if isinstance(found, type):
                return help_for_class(found)
    return GENERIC
