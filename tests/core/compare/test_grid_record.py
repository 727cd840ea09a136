"""core/compare/grid_record.py: outputs/compare/grid.json (the tournament's step x prompt grid)
written and read back through the codec, base first then the steps in order, and the refusals of a
grid that contradicts itself (a cell with both a render and a reason, a path out of the run)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.compare.grid_record import (
    GridCell,
    GridPrompt,
    GridRecord,
    GridRow,
    grid_path,
    grid_record,
    read_grid,
    row_label,
    row_name,
    write_grid,
)

SETTINGS = "first frame, 8 steps, 320x192"
PROMPTS = (
    GridPrompt(index=0, category="in-distribution", text="sks a cat"),
    GridPrompt(index=1, category="out-of-distribution", text="sks <b>&amp</b>"),
)


def _row(step: int | None, missing: str | None = None) -> GridRow:
    name = row_name(step)
    cells = []
    for p in PROMPTS:
        if missing is not None and p.index == 1:
            cells.append(GridCell(prompt=1, render=None, keyframes=(), missing=missing))
            continue
        render = f"outputs/compare/renders/{name}/prompt-{p.index:02d}.mp4"
        key = f"outputs/compare/renders/{name}/prompt-{p.index:02d}-key.png"
        cells.append(GridCell(prompt=p.index, render=render, keyframes=(key,), missing=None))
    return GridRow(
        name=name, step=step, checkpoint=None if step is None else f"/r/{step}", cells=tuple(cells)
    )


def test_the_grid_is_written_and_read_back_base_first_then_steps(tmp_path: Path):
    record = grid_record(
        SETTINGS, 42, PROMPTS, [_row(1000), _row(None), _row(500, missing="the render failed")]
    )
    assert [r.name for r in record.rows] == ["base", "step-500", "step-1000"]
    assert [row_label(r) for r in record.rows] == ["base", "step 500", "step 1,000"]
    path = write_grid(tmp_path, record)
    assert path == grid_path(tmp_path) == tmp_path / "outputs" / "compare" / "grid.json"
    doc = json.loads(path.read_text())
    assert doc["version"] == 1 and doc["seed"] == 42 and doc["settings"] == SETTINGS
    assert doc["prompts"][1] == {"index": 1, "category": "out-of-distribution", "text": "sks <b>&amp</b>"}
    assert doc["rows"][1]["cells"][1] == {
        "prompt": 1,
        "render": None,
        "keyframes": [],
        "missing": "the render failed",
    }
    assert read_grid(tmp_path) == record


def test_no_grid_before_the_first_comparison(tmp_path: Path):
    assert read_grid(tmp_path) is None


@pytest.mark.parametrize(
    "broken, words",
    [
        (lambda d: d["rows"][0]["cells"][0].update(missing="why"), "both a render and a reason"),
        (lambda d: d["rows"][0]["cells"][0].update(render="../../etc/passwd"), "not a path inside"),
        (lambda d: d["rows"][0]["cells"][0].update(keyframes=["/abs.png"]), "not a path inside"),
        (lambda d: d["rows"][0]["cells"].pop(), "one cell per prompt"),
        (lambda d: d["rows"].reverse(), "base model first"),
        (lambda d: d["rows"][0].update(colour="red"), "colour"),
    ],
)
def test_a_grid_that_contradicts_itself_is_refused_naming_the_file(tmp_path: Path, broken, words):
    write_grid(tmp_path, grid_record(SETTINGS, 42, PROMPTS, [_row(None), _row(500)]))
    doc = json.loads(grid_path(tmp_path).read_text())
    broken(doc)
    grid_path(tmp_path).write_text(json.dumps(doc))
    with pytest.raises(UsageError, match="grid.json") as caught:
        read_grid(tmp_path)
    assert words in str(caught.value)


def test_a_record_is_checked_as_it_is_built():
    with pytest.raises(ValueError, match="listed twice"):
        GridRecord(settings=SETTINGS, seed=42, prompts=PROMPTS, rows=(_row(None), _row(None)))


def test_clear_grid_removes_the_last_tournaments_grid_sheet_and_page(tmp_path: Path):
    from ltx_wizard.core.compare.grid_record import clear_grid

    write_grid(tmp_path, grid_record(SETTINGS, 42, PROMPTS, [_row(None)]))
    folder = tmp_path / "outputs" / "compare"
    (folder / "contact-sheet.png").write_bytes(b"x")
    (folder / "index.html").write_text("x")
    (folder / "compare.json").write_text("{}")
    clear_grid(tmp_path)
    assert sorted(p.name for p in folder.iterdir()) == ["compare.json"]
    clear_grid(tmp_path)  # nothing there: nothing to do
