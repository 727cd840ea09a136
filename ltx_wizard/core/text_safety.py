"""Text from files, devices and the trainer, made safe to show: no control characters.

A GPU name, a safetensors metadata value or a path can carry escape sequences that would move
the cursor or retitle the terminal. `clean_text` drops C0/C1 control characters (keeping tab),
turning newlines into a visible `⏎` so one value never splits a line. The TUI adds Textual
markup escaping on top (tui/widgets/formatting.py `safe_markup`); core stays free of Textual.
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")


def clean_text(text: object) -> str:
    """One display-safe line: ANSI sequences removed, newlines shown as ⏎, other controls dropped."""
    value = str(text)
    value = _ANSI.sub("", value)
    value = value.replace("\r\n", "\n").replace("\n", "⏎").replace("\r", "⏎")
    return _CONTROL.sub("", value)
