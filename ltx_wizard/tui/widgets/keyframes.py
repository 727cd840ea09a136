"""Keyframes drawn in the terminal: Kitty graphics or Sixel where the terminal has them, half-blocks
everywhere else (tui/images/choice.py decides, from the environment alone).

Half-blocks: each cell is `▀`, its foreground the upper pixel and its background the lower one;
they need nothing of the terminal but 256 or 24-bit colour, so they draw the same over plain SSH,
in tmux and in screen (and in every test and snapshot). Kitty: the pictures are sent once and shown
through placeholder text (images/kitty.py), freed when the strip goes. Sixel: blank cells are laid
out, and the pictures are written over them each time Textual paints those lines (`render_lines`:
the sequence rides, as a zero-width control segment, at the end of the last visible image line,
and the cursor is put back where that line's text ends). Decoding and encoding run in a thread
worker; the image libraries are imported only then, when a sheet is first drawn.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from rich.control import Control
from rich.segment import ControlType, Segment
from rich.style import Style
from rich.text import Text
from textual import work
from textual.dom import NoScreen
from textual.errors import NoWidget
from textual.geometry import Region
from textual.message import Message
from textual.strip import Strip
from textual.widgets import Static

from ltx_wizard.core.evaluation.keyframes import Frame, Keyframes, decode
from ltx_wizard.core.base.text_safety import clean_text

HALF = "▀"
FRAMES = 4
GAP = 1
_ZERO_WIDTH = ((ControlType.CURSOR_FORWARD, 0),)  # a segment the layout counts as no cells


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


def graphics_for(app):
    """The protocol for this App's terminal (reads tmux's setting: call it in a worker)."""
    from ltx_wizard.tui.images.choice import choose

    forced = getattr(getattr(app, "options", None), "graphics", None)
    return choose(os.environ, forced, color_system=app.console.color_system, headless=app.is_headless)


def emit(app, data: str) -> None:
    """Write escape sequences to the terminal through Textual's own writer (the path its
    copy_to_clipboard takes), so they stay in order with the screen's updates."""
    driver = getattr(app, "_driver", None)
    if driver is not None and data:
        driver.write(data)


class KeyframeStrip(Static):
    """One render: a label line, then its keyframes (decoded in a worker, once per width)."""

    @dataclass
    class Decoded(Message):
        strip: KeyframeStrip
        found: Keyframes
        graphics: Any  # images/choice.py Graphics
        drawing: Any = None  # images/drawing.py Drawing, for Kitty and Sixel

    @dataclass
    class Drawn(Message):
        """Which protocol drew a strip (bubbles up: the screen can say so)."""

        graphics: Any  # images/choice.py Graphics

    def __init__(
        self, path: Path, label: str, *, cells: int, count: int = FRAMES, id: str | None = None, graphics=None
    ) -> None:
        super().__init__(Text(f"{label}\n(decoding...)", no_wrap=True), id=id, classes="keyframe-strip")
        self.path, self.label, self.cells, self.count = Path(path), label, cells, count
        self.graphics = graphics  # images/choice.py Graphics; resolved in the worker when None
        self.found: Keyframes | None = None
        self.drawing = None  # images/drawing.py Drawing, for Kitty and Sixel

    def on_mount(self) -> None:
        self.load()

    @work(thread=True, exit_on_error=False, group="keyframes")
    def load(self) -> None:
        from ltx_wizard.tui.images.choice import HALFBLOCKS, cell_pixels

        graphics = self.graphics or graphics_for(self.app)
        width = frame_width(self.cells, self.count)
        if graphics.protocol == HALFBLOCKS:
            self.post_message(self.Decoded(self, decode(self.path, self.count, width), graphics))
            return
        from ltx_wizard.tui.images.drawing import prepare

        drawing = prepare(
            graphics,
            self.path,
            self.count,
            width,
            truecolor=self.app.console.color_system != "256",
            cell=cell_pixels(),
        )
        self.post_message(self.Decoded(self, drawing.found, graphics, drawing))

    def on_keyframe_strip_decoded(self, message: Decoded) -> None:
        if message.strip is not self:
            return
        message.stop()
        self.found = found = message.found
        head = Text(self.label, style="bold", no_wrap=True, overflow="ellipsis")
        drawing, self.graphics = message.drawing, message.graphics
        self.post_message(self.Drawn(self.graphics))
        if found.error:
            self.update(head + Text(f"\n{clean_text(found.error)}", style="italic"))
            return
        if drawing is None:
            self.update(head + Text("\n") + halfblocks(found.frames))
            return
        self._free()
        self.drawing = drawing
        emit(self.app, drawing.transmit)  # Kitty: the pictures, once; the text shows them
        shown = Text(no_wrap=True, overflow="crop")  # the label's bold stays off the picture
        shown.append_text(head)
        shown.append("\n")
        shown.append_text(drawing.text)
        self.update(shown)

    def on_unmount(self) -> None:
        self._free()

    def _free(self) -> None:
        if self.drawing is not None and self.drawing.ids:
            from ltx_wizard.tui.images import kitty

            passthrough = self.drawing.graphics.passthrough
            emit(self.app, "".join(kitty.delete(i, passthrough=passthrough) for i in self.drawing.ids))
        self.drawing = None

    def render_lines(self, crop: Region) -> list[Strip]:
        lines = super().render_lines(crop)
        drawing = self.drawing
        if drawing is None or not drawing.sixels or not lines:
            return lines
        try:
            if not self.screen.is_active:  # under a dialog: Sixel would be drawn over it
                return lines
            geometry = self.screen.find_widget(self)
        except (NoScreen, NoWidget):  # not placed on a screen (yet): nothing to draw over
            return lines
        return _with_sixels(
            lines, crop, drawing, geometry.region, geometry.visible_region, self.content_region
        )


def _with_sixels(
    lines: list[Strip], crop: Region, drawing, region: Region, visible: Region, content: Region
) -> list[Strip]:
    """`lines` with the Sixel pictures written at the end of the last visible image line that
    this paint covers: the whole visible part of each keyframe wholly in view."""
    top = content.y + 1  # the image rows follow the label line
    first, stop = max(top, visible.y), min(top + drawing.rows, visible.bottom)
    last = min(stop, region.y + crop.bottom) - 1  # screen row that carries the sequences
    if first >= stop or last < max(first, region.y + crop.y):
        return lines
    out = []
    for index, offset in enumerate(drawing.offsets()):
        x = content.x + offset
        if x < visible.x or x + drawing.cols > visible.right:
            continue  # cut by the view's side: left blank rather than drawn over a neighbour
        sequence = drawing.sixel_rows(index, first - top, stop - top)
        if sequence:
            out.append(Control.move_to(x, first).segment.text + sequence)
    if not out:
        return lines
    at = last - region.y - crop.y
    back = Control.move_to(region.x + crop.right, last).segment.text  # where the line's text ends
    line = lines[at]
    lines = list(lines)
    lines[at] = Strip([*line, Segment("".join(out) + back, None, _ZERO_WIDTH)], line.cell_length)
    return lines
