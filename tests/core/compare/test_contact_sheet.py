"""core/compare/contact_sheet.py: a tile per cell from its middle keyframe PNG, a keyframe of
another size scaled to the tile, and a missing or unreadable one drawn as a crossed grey tile."""

from __future__ import annotations

from pathlib import Path

from ltx_wizard.core.base.png import Image, decode, encode
from ltx_wizard.core.compare import contact_sheet as cs
from ltx_wizard.core.compare.grid_record import GridCell, GridPrompt, GridRow, grid_record


def _png(path: Path, width: int, height: int, colour: tuple[int, int, int]) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(encode(Image(width, height, bytes(colour) * (width * height))))
    return path.relative_to(path.parents[4]).as_posix()


def test_the_sheet_has_a_tile_per_cell_from_its_keyframe(tmp_path: Path):
    renders = tmp_path / "outputs" / "compare" / "renders"
    (renders / "base").mkdir(parents=True)
    (renders / "base" / "p.mp4").write_bytes(b"x")
    keys = tuple(_png(renders / "base" / f"k{i}.png", 8, 6, (10 * i, 200, 30)) for i in (1, 2, 3))
    big = _png(renders / "step-5" / "k.png", 16, 12, (1, 2, 3))
    broken = renders / "step-5" / "bad.png"
    broken.write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    rows = [
        GridRow(
            name="base",
            step=None,
            checkpoint=None,
            cells=(
                GridCell(prompt=0, render="outputs/compare/renders/base/p.mp4", keyframes=keys, missing=None),
                GridCell(prompt=1, render=None, keyframes=(), missing="failed"),
            ),
        ),
        GridRow(
            name="step-5",
            step=5,
            checkpoint="/c",
            cells=(
                GridCell(
                    prompt=0, render="outputs/compare/renders/base/p.mp4", keyframes=(big,), missing=None
                ),
                GridCell(
                    prompt=1,
                    render="outputs/compare/renders/base/p.mp4",
                    keyframes=("outputs/compare/renders/step-5/bad.png",),
                    missing=None,
                ),
            ),
        ),
    ]
    prompts = [GridPrompt(index=i, category="c", text="t") for i in (0, 1)]
    grid = grid_record("s", 42, prompts, rows)
    path = cs.write_sheet(tmp_path, grid)
    assert path == tmp_path / "outputs" / "compare" / "contact-sheet.png"
    sheet = decode(path.read_bytes())
    assert (sheet.width, sheet.height) == (cs.GAP + 2 * (8 + cs.GAP), cs.GAP + 2 * (6 + cs.GAP))
    x, y = cs.tile_origin((8, 6), 0, 0)
    assert sheet.pixel(x, y) == (20, 200, 30)  # the middle keyframe of three
    x, y = cs.tile_origin((8, 6), 1, 0)
    assert sheet.pixel(x + 7, y + 5) == (1, 2, 3)  # 16x12 scaled into 8x6
    for row, column in ((0, 1), (1, 1)):  # missing, unreadable: grey, crossed
        x, y = cs.tile_origin((8, 6), row, column)
        assert sheet.pixel(x, y) == cs.CROSS and sheet.pixel(x + 4, y) == cs.MISSING
    assert sheet.pixel(0, 0) == cs.BACKGROUND
