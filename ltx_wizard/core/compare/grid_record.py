"""The tournament's grid (issue 44, Deliver 4), RUN/outputs/compare/grid.json: one row for the base
model, then one per compared checkpoint by step, and one column per prompt (its index, eval's
category and its text). Each cell names the render (a path relative to the run folder), its
keyframe image(s), or the reason it is missing. The Results screen, the contact sheet and the HTML
page all draw from this one record, read back through the run folder's codec (one declaration,
versioned, unknown fields refused naming the file).

Field names are stable: later versions only add fields.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path, PurePosixPath

import msgspec

from ltx_wizard.core.io import run_folder
from ltx_wizard.core.io.run_codec import declare

GRID_VERSION = 1
BASE = "base"  # the base model's row name (and its renders' folder)


class GridPrompt(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    index: int  # the column, from 0
    category: str  # eval's category (core/evaluation/prompts.py CATEGORIES)
    text: str


class GridCell(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    prompt: int  # the column's GridPrompt.index
    render: str | None  # relative to the run folder; None when missing
    keyframes: tuple[str, ...]  # keyframe images (PNG), relative to the run folder
    missing: str | None  # why there is no render; None when there is one


class GridRow(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    name: str  # "base", or "step-<step>": the renders' folder under outputs/compare/renders/
    step: int | None  # None for the base model
    checkpoint: str | None  # the LoRA file rendered; None for the base model
    cells: tuple[GridCell, ...]  # one per prompt, in the prompts' order


class GridRecord(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    version: int = GRID_VERSION
    settings: str  # how every cell rendered, in words (pipeline, frames, steps, size), for the labels
    seed: int  # every cell renders at this seed
    prompts: tuple[GridPrompt, ...]
    rows: tuple[GridRow, ...]  # base first, then the steps in order

    def __post_init__(self) -> None:
        if [p.index for p in self.prompts] != list(range(len(self.prompts))):
            raise ValueError("the prompts' indexes are not 0, 1, 2, ... in order")
        names = [r.name for r in self.rows]
        if len(set(names)) != len(names):
            raise ValueError(f"a row is listed twice ({', '.join(names)})")
        steps = [r.step for r in self.rows if r.step is not None]
        if steps != sorted(steps) or any(r.step is None for r in self.rows[1:]):
            raise ValueError("the rows are not the base model first, then the steps in order")
        for row in self.rows:
            _check_row(row, len(self.prompts))


def _check_row(row: GridRow, columns: int) -> None:
    if [c.prompt for c in row.cells] != list(range(columns)):
        raise ValueError(f"row {row.name} does not have one cell per prompt, in order")
    for cell in row.cells:
        if (cell.render is None) == (cell.missing is None):
            raise ValueError(f"row {row.name}: a cell has both a render and a reason, or neither")
        for rel in (cell.render, *cell.keyframes):
            if rel is not None and (PurePosixPath(rel).is_absolute() or ".." in PurePosixPath(rel).parts):
                raise ValueError(f"row {row.name}: {rel!r} is not a path inside the run folder")


GRID_FILE = declare(run_folder.COMPARE_GRID, GridRecord, version=GRID_VERSION)


def row_name(step: int | None) -> str:
    """The row's name and its renders' folder: "base", else "step-<step>"."""
    return BASE if step is None else f"step-{step}"


def row_label(row: GridRow) -> str:
    """The row as the grid's labels show it: "base", "step 1,400"."""
    return BASE if row.step is None else f"step {row.step:,}"


def renders_dir(run_dir: str | Path) -> Path:
    return run_folder.COMPARE_RENDERS.path(run_dir)


def grid_path(run_dir: str | Path) -> Path:
    return run_folder.COMPARE_GRID.path(run_dir)


def relative(run_dir: str | Path, path: Path) -> str:
    """A file under the run folder as a cell names it (POSIX, relative to the run folder)."""
    return Path(path).relative_to(Path(run_dir)).as_posix()


def cell_file(run_dir: str | Path, rel: str) -> Path:
    """A cell's path (render or keyframe) back on disk."""
    return Path(run_dir) / PurePosixPath(rel)


def grid_record(
    settings: str, seed: int, prompts: Sequence[GridPrompt], rows: Sequence[GridRow]
) -> GridRecord:
    """The record, base first and then the steps in order, whatever order the rows came in."""
    ordered = sorted(rows, key=lambda r: (r.step is not None, r.step or 0))
    return GridRecord(settings=settings, seed=seed, prompts=tuple(prompts), rows=tuple(ordered))


def clear_grid(run_dir: str | Path) -> None:
    """Before new renders: the grid, the contact sheet and the page of the last tournament go, so
    none of them names renders that are gone (a stopped tournament leaves none)."""
    for file in (run_folder.COMPARE_GRID, run_folder.CONTACT_SHEET, run_folder.COMPARE_PAGE):
        file.path(run_dir).unlink(missing_ok=True)


def write_grid(run_dir: str | Path, record: GridRecord) -> Path:
    return GRID_FILE.write(run_dir, record)


def read_grid(run_dir: str | Path) -> GridRecord | None:
    """The grid, None before the first comparison with renders; a UsageError naming the file for a
    damaged one."""
    return GRID_FILE.read(run_dir)


def grid_cell(
    run_dir: str | Path, index: int, render: Path | None, keyframes: Sequence[Path], missing: str | None
) -> GridCell:
    """A cell from the files the renders left under the run folder (absolute paths), or why none."""
    return GridCell(
        prompt=index,
        render=None if render is None else relative(run_dir, render),
        keyframes=tuple(relative(run_dir, k) for k in keyframes),
        missing=missing,
    )


CellFiles = tuple[Path | None, Sequence[Path], str | None]  # (render, keyframes, why missing)


def grid_row(
    run_dir: str | Path, step: int | None, checkpoint: Path | None, cells: Sequence[CellFiles]
) -> GridRow:
    """A row from what its renders left under the run folder, one cell per prompt in order."""
    return GridRow(
        name=row_name(step),
        step=step,
        checkpoint=None if checkpoint is None else str(checkpoint),
        cells=tuple(grid_cell(run_dir, i, *cell) for i, cell in enumerate(cells)),
    )
