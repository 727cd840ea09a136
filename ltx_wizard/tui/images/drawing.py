"""A render's keyframes ready for a richer protocol: decoded at the pixels the terminal shows,
encoded, and laid out in the same cells the half-block drawing takes (each keyframe `cols` cells
wide and `rows` high, a gap of one between), so a sheet is the same size whichever draws it.

Built in a worker thread (decode and encode are the slow parts); the widget then writes a Kitty
drawing's transmissions once and shows its placeholder text, or injects a Sixel drawing's
sequences where its blank cells are (widgets/keyframes.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from rich.text import Text

from ltx_wizard.core.evaluation.keyframes import Keyframes, decode, video_size
from ltx_wizard.tui.images import kitty, sixel
from ltx_wizard.tui.images.choice import KITTY, Graphics

KITTY_CELL = (8, 16)  # pixels sent per cell: kitty scales the image to its cells anyway


@dataclass
class Drawing:
    graphics: Graphics
    found: Keyframes
    cols: int  # cells per keyframe
    rows: int
    gap: int
    text: Text = field(default_factory=Text)  # the image rows: placeholders, or blank cells
    transmit: str = ""  # Kitty: the images' data and placements, written once
    ids: list[int] = field(default_factory=list)  # Kitty: to free them again
    cell: tuple[int, int] = (10, 20)  # Sixel: a cell's pixels
    sixels: list[str] = field(default_factory=list)  # Sixel: one whole sequence per keyframe
    _cropped: dict[tuple[int, int, int], str] = field(default_factory=dict)

    def offsets(self) -> list[int]:
        """Each keyframe's first column, from the drawing's left."""
        return [n * (self.cols + self.gap) for n in range(len(self.found.frames))]

    def sixel_rows(self, index: int, first: int, last: int) -> str:
        """Keyframe `index`'s Sixel for its cell rows first..last (end excluded): a sheet
        scrolled half out of view draws only what shows."""
        if (first, last) == (0, self.rows):
            return self.sixels[index]
        key = (index, first, last)
        if key not in self._cropped:
            frame, height = self.found.frames[index], self.cell[1]
            rows, rgb = sixel.cropped(frame.width, frame.height, frame.rgb, first * height, last * height)
            self._cropped[key] = sixel.encode(frame.width, rows, rgb) if rows else ""
        return self._cropped[key]


def rows_for(path: Path, cols: int) -> int:
    """The keyframe's height in cells, as the half-block drawing has it (two pixels a cell)."""
    size = video_size(path)
    if size is None:
        return max(1, cols // 4)
    width, height = size
    return max(1, round(cols * height / max(width, 1) / 2))


def prepare(
    graphics: Graphics,
    path: Path,
    count: int,
    cols: int,
    *,
    gap: int = 1,
    truecolor: bool = True,
    cell: tuple[int, int] = (10, 20),
) -> Drawing:
    cols = min(cols, kitty.MAX_CELLS)
    rows = min(rows_for(path, cols), kitty.MAX_CELLS)
    px = KITTY_CELL if graphics.protocol == KITTY else cell
    found = decode(path, count, cols * px[0], rows * px[1], scaler=True)
    drawing = Drawing(graphics, found, cols, rows, gap, cell=cell)
    if found.error or not found.frames:
        return drawing
    if graphics.protocol == KITTY:
        drawing.ids = [kitty.new_id(truecolor) for _ in found.frames]
        drawing.transmit = "".join(
            kitty.transmit(i, f.width, f.height, f.rgb, cols, rows, passthrough=graphics.passthrough)
            for i, f in zip(drawing.ids, found.frames)
        )
    else:
        drawing.sixels = [sixel.encode(f.width, f.height, f.rgb) for f in found.frames]
    drawing.text = _cells(drawing, truecolor)
    return drawing


def _cells(drawing: Drawing, truecolor: bool) -> Text:
    text = Text(no_wrap=True, overflow="crop")
    for row in range(drawing.rows):
        for n, _frame in enumerate(drawing.found.frames):
            if n:
                text.append(" " * drawing.gap)
            if drawing.ids:
                text.append_text(kitty.placeholder_row(drawing.ids[n], row, drawing.cols, truecolor))
            else:
                text.append(" " * drawing.cols)
        if row < drawing.rows - 1:
            text.append("\n")
    return text
