"""core/compare/compare_page.py: index.html escapes every text (a hostile prompt stays text),
links only relative paths inside the compare folder, and says why a cell is missing."""

from __future__ import annotations

import html
import re
from pathlib import Path

from ltx_wizard.core.compare.compare_page import page, write_page
from ltx_wizard.core.compare.grid_record import GridCell, GridPrompt, GridRow, grid_record

HOSTILE = '"><script>alert(1)</script><img src=x onerror=alert(2)> & </td></table>'


def _grid():
    prompts = (
        GridPrompt(index=0, category="in-distribution", text=HOSTILE),
        GridPrompt(index=1, category="out-of-<b>distribution</b>", text="a cat"),
    )
    base = "outputs/compare/renders/base/prompt-00"
    rows = [
        GridRow(
            name="base",
            step=None,
            checkpoint=None,
            cells=(
                GridCell(prompt=0, render=base + ".mp4", keyframes=(base + "-key1.png",), missing=None),
                GridCell(prompt=1, render=None, keyframes=(), missing="out of memory <twice> & gone"),
            ),
        )
    ]
    return grid_record("17 frames <at> 64x64", 42, prompts, rows)


def test_a_hostile_prompt_is_escaped_text_and_no_markup():
    text = page(_grid(), summary="recommended <step> & why")
    assert "<script>" not in text and "<img src=x" not in text
    assert html.escape(HOSTILE) in text
    assert "out-of-&lt;b&gt;distribution&lt;/b&gt;" in text
    assert "missing: out of memory &lt;twice&gt; &amp; gone" in text
    assert "recommended &lt;step&gt; &amp; why" in text and "17 frames &lt;at&gt; 64x64" in text
    # the only tags are the page's own
    tags = set(re.findall(r"<(/?[a-zA-Z0-9]+)", text))
    assert tags <= {
        "html",
        "/html",
        "head",
        "/head",
        "meta",
        "title",
        "/title",
        "style",
        "/style",
        "body",
        "/body",
        "h1",
        "/h1",
        "p",
        "/p",
        "table",
        "/table",
        "tr",
        "/tr",
        "th",
        "/th",
        "td",
        "/td",
        "a",
        "/a",
        "img",
        "br",
    }


def test_links_are_relative_to_the_page_and_no_asset_is_external(tmp_path: Path):
    path = write_page(tmp_path, _grid())
    assert path == tmp_path / "outputs" / "compare" / "index.html"
    text = path.read_text("utf-8")
    links = re.findall(r'(?:href|src)="([^"]+)"', text)
    assert links == ["renders/base/prompt-00.mp4", "renders/base/prompt-00-key1.png", "contact-sheet.png"]
    assert "http" not in text and "<script" not in text and "<link" not in text
