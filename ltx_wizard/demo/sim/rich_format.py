"""What the trainer's output looks like: rich's log layout on piped stdout, tracebacks on stderr.

`LEVEL` padded to 8 columns, a space, the message word-wrapped to the message column (a word too
long for the column starts a new line and is folded), a space and `source.py:LINE` on the first
line; every line padded to the console width, continuation lines indented to the message column.
The console width is COLUMNS when set, else the terminal's width on a tty, else 80 (as rich does).
No rich import: the core package stays free of it.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from ltx_wizard.core.base.text_cells import cell_width as cells

LEVEL_WIDTH = 8


def console_width(stream=None) -> int:
    raw = os.environ.get("COLUMNS", "")
    if raw.isdigit() and int(raw) > 0:
        return int(raw)
    stream = stream or sys.stdout
    if stream.isatty():
        return shutil.get_terminal_size((80, 24)).columns
    return 80


def wrap(paragraph: str, width: int) -> list[str]:
    """Word-wrap one paragraph the way rich does (keeps leading indentation, folds long words)."""
    lead = paragraph[: len(paragraph) - len(paragraph.lstrip(" "))]
    words = paragraph.split()
    if not words:
        return [""]
    lines: list[str] = []
    current = lead
    for word in words:
        if current.strip() and cells(current) + 1 + cells(word) <= width:
            current += " " + word
            continue
        if current.strip():
            lines.append(current)
            current = ""
        elif current and cells(current) + cells(word) <= width:
            current += word
            continue
        while cells(word) > width:
            lines.append(word[:width])
            word = word[width:]
        current = word
    lines.append(current)
    return lines


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - cells(text))


def format_record(level: str, message: str, source: str, width: int) -> list[str]:
    """The physical lines of one log record."""
    msg_width = max(10, width - LEVEL_WIDTH - 1 - 1 - len(source))
    pieces: list[str] = []
    for paragraph in message.split("\n"):
        pieces.extend(wrap(paragraph, msg_width))
    lines = [f"{level:<{LEVEL_WIDTH}} {_pad(pieces[0], msg_width)} {source}"]
    blank_source = " " * len(source)
    for piece in pieces[1:]:
        lines.append(f"{'':<{LEVEL_WIDTH}} {_pad(piece, msg_width)} {blank_source}")
    return lines


# -- what Python and torch print on stderr -------------------------------------------------------

Frame = tuple[str, int, str, str]  # file (relative to the trainer), line, function, source line


def traceback_lines(frames: list[Frame], last: str, root: Path) -> list[str]:
    """An uncaught-exception traceback as Python prints it."""
    lines = ["Traceback (most recent call last):"]
    for file, line, func, code in frames:
        lines += [f'  File "{root / file}", line {line}, in {func}', f"    {code}"]
    return lines + [last]


CHAINED = ["", "During handling of the above exception, another exception occurred:", ""]


def oom_message(tried: float, gpu: int, capacity: float, free: float) -> str:
    """torch's CUDA out-of-memory message (all figures in GiB)."""
    used = capacity - free
    return (
        f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {tried:.2f} GiB. GPU {gpu} "
        f"has a total capacity of {capacity:.2f} GiB of which {free:.2f} GiB is free. Including "
        f"non-PyTorch memory, this process has {used:.2f} GiB memory in use. Of the allocated "
        f"memory {used - 0.9:.2f} GiB is allocated by PyTorch, and 0.41 GiB is reserved by "
        "PyTorch but unallocated. If reserved but unallocated memory is large try setting "
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation."
    )
