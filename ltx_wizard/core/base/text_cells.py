"""How many terminal cells a string takes, the way rich counts them (no rich import here)."""

from __future__ import annotations

import unicodedata


def cell_width(text: str) -> int:
    """Terminal cells `text` takes (wide emoji count two, joiners and combining marks none)."""
    if text.isascii():  # one cell per character, control characters included (as below)
        return len(text)
    width = previous = 0
    joined = False
    for ch in text:
        if ch == "\u200d":  # zero-width joiner: the next emoji merges into this one
            joined = True
        elif ch == "\ufe0f":  # emoji presentation widens a narrow symbol (as rich does)
            width += 1 if previous == 1 else 0
            previous = 2
        elif not (unicodedata.combining(ch) or ch == "\ufe0e"):
            cell = 2 if unicodedata.east_asian_width(ch) in "WF" else 1
            width += 0 if joined else cell
            previous, joined = cell, False
    return width
