"""The tournament's HTML page, RUN/outputs/compare/index.html, beside the renders: the grid
(grid_record.py) as a table of keyframes, each linking to its render, the contact sheet, and the
recommendation's line. Every link is relative (the folder is copied home whole, by the scp line);
every text is HTML-escaped, the prompts above all (they are the user's and the dataset's words);
no script, no external asset: it opens from a file anywhere.
"""

from __future__ import annotations

import html
import posixpath
from pathlib import Path
from urllib.parse import quote

from ltx_wizard.core.compare.grid_record import GridCell, GridRecord, row_label
from ltx_wizard.core.io import run_folder
from ltx_wizard.core.io.safe_fs import write_text

PAGE_DIR = posixpath.dirname(run_folder.COMPARE_PAGE.rel)  # the cells' paths are relative to the run
STYLE = (
    "body{font-family:sans-serif;background:#181818;color:#ddd}"
    "table{border-collapse:collapse}td,th{border:1px solid #444;padding:4px;vertical-align:top}"
    "th{font-weight:normal;text-align:left;max-width:16em}img{display:block;max-width:16em}"
    ".missing{color:#e88;max-width:16em}a{color:#8cf}"
)


def href(rel: str) -> str:
    """A cell's path (relative to the run) as a link from the page's folder, percent-encoded."""
    return quote(posixpath.relpath(rel, PAGE_DIR))


def _cell(cell: GridCell) -> str:
    if cell.render is None:
        return f'<td class="missing">missing: {html.escape(cell.missing or "")}</td>'
    link = html.escape(href(cell.render))
    if not cell.keyframes:
        return f'<td><a href="{link}">{html.escape(posixpath.basename(cell.render))}</a></td>'
    key = html.escape(href(cell.keyframes[len(cell.keyframes) // 2]))
    return f'<td><a href="{link}"><img src="{key}" alt="keyframe"></a></td>'


def page(grid: GridRecord, summary: str | None = None) -> str:
    """index.html's text. `summary`: the comparison's one line (compare_record.compare_line)."""
    head = "".join(f"<th>{html.escape(p.category)}<br>{html.escape(p.text)}</th>" for p in grid.prompts)
    rows = "".join(
        f"<tr><th>{html.escape(row_label(row))}</th>{''.join(_cell(c) for c in row.cells)}</tr>\n"
        for row in grid.rows
    )
    sheet = html.escape(href(run_folder.CONTACT_SHEET.rel))
    said = f"<p>{html.escape(summary)}</p>\n" if summary else ""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n'
        f"<title>ltx-wizard compare</title><style>{STYLE}</style></head><body>\n"
        f"<h1>Checkpoint tournament</h1>\n{said}"
        f"<p>Every cell: {html.escape(grid.settings)}. Click a keyframe for its render.</p>\n"
        f"<table><tr><th>model</th>{head}</tr>\n{rows}</table>\n"
        f'<p><a href="{sheet}">contact sheet</a></p>\n</body></html>\n'
    )


def write_page(run_dir: str | Path, grid: GridRecord, summary: str | None = None) -> Path:
    return write_text(run_folder.COMPARE_PAGE.path(run_dir), page(grid, summary), root=Path(run_dir))
