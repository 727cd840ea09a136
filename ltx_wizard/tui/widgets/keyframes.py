"""Keyframes drawn in the terminal with half-blocks: each cell is `▀`, its foreground the upper
pixel and its background the lower one, so a cell holds two square-ish pixels.

Half-blocks need nothing of the terminal but 24-bit (or 256) colour, so they draw the same over
plain SSH, in tmux and in screen. The richer image protocols are not used: Kitty graphics and
Sixel need the terminal to be asked what it supports before Textual starts reading its input
(the one terminal-graphics library for Textual, textual-image, does it at import time), and tmux
passes neither by default (Kitty's needs `set -g allow-passthrough on`; Sixel a tmux built with
it, 3.4 or later). Decoding is PyAV's (core/evaluation/keyframes.py), in a thread worker.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

from rich.style import Style
from rich.text import Text
from textual import work
from textual.message import Message
from textual.widgets import Static

from ltx_wizard.core.evaluation.keyframes import Frame, Keyframes, decode

HALF = "▀"
FRAMES = 4
GAP = 1


def tmux_note() -> str | None:
    """What tmux does to richer images, when the wizard runs inside it."""
    if not os.environ.get("TMUX"):
        return None
    return "tmux: drawn in half-blocks (Kitty images need `set -g allow-passthrough on`)"


def halfblocks(frames: Sequence[Frame], gap: int = GAP) -> Text:
    """The frames side by side, `gap` cells apart, as half-block text."""
    text = Text(no_wrap=True, overflow="crop")
    if not frames:
        return text
    rows = max(f.height for f in frames) // 2
    for row in range(rows):
        for n, frame in enumerate(frames):
            if n:
                text.append(" " * gap)
            for x in range(frame.width):
                top = frame.pixel(x, 2 * row) if 2 * row < frame.height else (0, 0, 0)
                low = frame.pixel(x, 2 * row + 1) if 2 * row + 1 < frame.height else (0, 0, 0)
                text.append(HALF, Style(color=f"rgb{top}", bgcolor=f"rgb{low}"))
        if row < rows - 1:
            text.append("\n")
    return text


def frame_width(cells: int, count: int = FRAMES, gap: int = GAP) -> int:
    """How many cells (pixels) wide each keyframe is, for `count` of them in `cells`."""
    return max(6, (cells - gap * (count - 1)) // count)


class KeyframeStrip(Static):
    """One render: a label line, then its keyframes (decoded in a worker, once per width)."""

    class Decoded(Message):
        def __init__(self, strip: "KeyframeStrip", found: Keyframes) -> None:
            super().__init__()
            self.strip, self.found = strip, found

    def __init__(self, path: Path, label: str, *, cells: int, count: int = FRAMES,
                 id: str | None = None) -> None:
        super().__init__(Text(f"{label}\n(decoding...)", no_wrap=True), id=id,
                         classes="keyframe-strip")
        self.path, self.label, self.cells, self.count = Path(path), label, cells, count
        self.found: Keyframes | None = None

    def on_mount(self) -> None:
        self.load()

    @work(thread=True, exit_on_error=False, group="keyframes")
    def load(self) -> None:
        width = frame_width(self.cells, self.count)
        self.post_message(self.Decoded(self, decode(self.path, self.count, width)))

    def on_keyframe_strip_decoded(self, message: Decoded) -> None:
        if message.strip is not self:
            return
        message.stop()
        self.found = found = message.found
        head = Text(self.label, style="bold", no_wrap=True, overflow="ellipsis")
        if found.error:
            self.update(head + Text(f"\n{found.error}", style="italic"))
            return
        self.update(head + Text("\n") + halfblocks(found.frames))
