"""What `compare` with renders must leave (issue 44, Deliver 4), checked against the files
themselves: grid.json's rows and cells against the checkpoints compared and the renders on disk,
each keyframe PNG against the frames PyAV decodes from its render, the contact sheet's size and
tiles against the keyframes, every link of index.html against the disk, and the scp line."""

from __future__ import annotations

import re
import shlex
import struct
from pathlib import Path

from ltx_wizard.core.base.png import decode
from ltx_wizard.core.compare import contact_sheet
from ltx_wizard.core.compare.grid_record import cell_file, read_grid
from ltx_wizard.core.evaluation import keyframes


def check_tournament(run: Path, doc: dict, err: str) -> None:
    folder = run / "outputs" / "compare"
    grid = read_grid(run)
    assert grid is not None and doc["grid"] == str(folder / "grid.json")
    steps = [c["step"] for c in doc["checkpoints"]]
    assert [r.name for r in grid.rows] == ["base", *(f"step-{s}" for s in steps)]
    assert [r.step for r in grid.rows] == [None, *steps]
    assert [r.checkpoint for r in grid.rows[1:]] == [c["path"] for c in doc["checkpoints"]]
    assert [p.category for p in grid.prompts][:2] == ["in-distribution", "out-of-distribution"]
    for row in grid.rows:
        for cell in row.cells:
            assert cell.missing is None and cell.render is not None, (row.name, cell)
            render = cell_file(run, cell.render)
            assert render.is_file() and render.parent == folder / "renders" / row.name
            assert len(cell.keyframes) == 3 and all(cell_file(run, k).is_file() for k in cell.keyframes)
            _keyframe_is_decoded_from(run, render, cell.keyframes)
    _sheet_holds_the_keyframes(run, grid, doc["contact_sheet"])
    _page_links_exist(folder)
    said, line = err.rstrip("\n").splitlines()[-1].split(": ", 1)
    argv = shlex.split(line)
    assert said == "copy it home" and argv[:2] == ["scp", "-r"] and argv[2].endswith(f":{folder}")


def _keyframe_is_decoded_from(run: Path, render: Path, keys: tuple[str, ...]) -> None:
    first = decode(cell_file(run, keys[0]).read_bytes())
    frames = keyframes.decode(render, count=3, width=first.width)
    assert frames.error is None and len(frames.frames) == 3
    for key, frame in zip(keys, frames.frames):
        assert decode(cell_file(run, key).read_bytes()).rgb == frame.rgb


def _sheet_holds_the_keyframes(run: Path, grid, path: str) -> None:
    data = Path(path).read_bytes()
    assert Path(path) == run / "outputs" / "compare" / "contact-sheet.png"
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    tile = decode(cell_file(run, grid.rows[0].cells[0].keyframes[1]).read_bytes())
    gap = contact_sheet.GAP
    assert (width, height) == (
        gap + len(grid.prompts) * (tile.width + gap),
        gap + len(grid.rows) * (tile.height + gap),
    )
    sheet = decode(data)
    tiles = []
    for r, row in enumerate(grid.rows):
        for c, cell in enumerate(row.cells):
            key = decode(cell_file(run, cell.keyframes[1]).read_bytes())  # the middle keyframe
            left, top = contact_sheet.tile_origin((tile.width, tile.height), r, c)
            for y in (0, key.height // 2, key.height - 1):
                for x in (0, key.width // 3, key.width - 1):
                    assert sheet.pixel(left + x, top + y) == key.pixel(x, y), (row.name, c, x, y)
            tiles.append(key.rgb)
    assert len(set(tiles)) == len(tiles)  # every model and prompt drew its own picture


def _page_links_exist(folder: Path) -> None:
    text = (folder / "index.html").read_text("utf-8")
    links = re.findall(r'(?:href|src)="([^"]+)"', text)
    assert any(link.endswith(".mp4") for link in links) and "contact-sheet.png" in links
    for link in links:
        assert not link.startswith(("/", "http:", "https:")) and (folder / link).is_file(), link
