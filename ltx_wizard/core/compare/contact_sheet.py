"""The tournament's contact sheet, RUN/outputs/compare/contact-sheet.png: one image of the grid
(grid_record.py), a row per model (the base, then each step) and a column per prompt, each cell
the middle keyframe of its render (the PNGs tournament renders wrote from PyAV's decoded frames),
scaled to one tile size. A cell without a render or a readable keyframe is a grey tile crossed
out, so the grid's shape always shows. Pure Python (core/base/png.py): no Pillow, no numpy.
"""

from __future__ import annotations

from pathlib import Path

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.base.png import Image, decode, encode
from ltx_wizard.core.compare.grid_record import GridCell, GridRecord, cell_file
from ltx_wizard.core.io import run_folder
from ltx_wizard.core.io.bounded import read_bytes
from ltx_wizard.core.io.safe_fs import write_bytes

GAP = 4  # pixels between tiles and around the sheet
BACKGROUND, MISSING, CROSS = (24, 24, 24), (72, 72, 72), (150, 60, 60)
DEFAULT_TILE = (128, 72)  # where no keyframe could be read at all
KEYFRAME_MAX_BYTES = 4 * 1024 * 1024


def tile_of(run_dir: str | Path, cell: GridCell) -> Image | None:
    """The cell's middle keyframe, None where it has none that reads as a PNG."""
    if not cell.keyframes:
        return None
    path = cell_file(run_dir, cell.keyframes[len(cell.keyframes) // 2])
    try:
        return decode(read_bytes(path, what="keyframe", limit=KEYFRAME_MAX_BYTES))
    except (ValueError, OSError, WizardError):
        return None


def _scaled(image: Image, width: int, height: int) -> bytes:
    """Nearest-neighbour: a keyframe of another size fills the tile all the same."""
    if (image.width, image.height) == (width, height):
        return image.rgb
    out = bytearray()
    for y in range(height):
        sy = y * image.height // height
        for x in range(width):
            at = (sy * image.width + x * image.width // width) * 3
            out += image.rgb[at : at + 3]
    return bytes(out)


def _missing_tile(width: int, height: int) -> bytes:
    out = bytearray()
    for y in range(height):
        for x in range(width):
            on_cross = (
                abs(x * height - y * width) < width or abs((width - 1 - x) * height - y * width) < width
            )
            out += bytes(CROSS if on_cross else MISSING)
    return bytes(out)


def sheet(run_dir: str | Path, grid: GridRecord) -> Image:
    """The contact sheet's pixels."""
    tiles = [[tile_of(run_dir, cell) for cell in row.cells] for row in grid.rows]
    first = next((t for row in tiles for t in row if t is not None), None)
    width, height = (first.width, first.height) if first is not None else DEFAULT_TILE
    columns, rows = max(1, len(grid.prompts)), max(1, len(grid.rows))
    sheet_w, sheet_h = GAP + columns * (width + GAP), GAP + rows * (height + GAP)
    canvas = bytearray(bytes(BACKGROUND) * (sheet_w * sheet_h))
    missing = _missing_tile(width, height)
    for r, row in enumerate(tiles):
        for c, tile in enumerate(row):
            pixels = missing if tile is None else _scaled(tile, width, height)
            left, top = GAP + c * (width + GAP), GAP + r * (height + GAP)
            for y in range(height):
                at = ((top + y) * sheet_w + left) * 3
                canvas[at : at + width * 3] = pixels[y * width * 3 : (y + 1) * width * 3]
    return Image(sheet_w, sheet_h, bytes(canvas))


def tile_origin(tile: tuple[int, int], row: int, column: int) -> tuple[int, int]:
    """Where the cell (row, column) starts on the sheet, for a tile of (width, height)."""
    return GAP + column * (tile[0] + GAP), GAP + row * (tile[1] + GAP)


def write_sheet(run_dir: str | Path, grid: GridRecord) -> Path:
    path = run_folder.CONTACT_SHEET.path(run_dir)
    return write_bytes(path, encode(sheet(run_dir, grid)), root=Path(run_dir))
