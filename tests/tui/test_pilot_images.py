"""The Results screen's keyframes through the richer protocols, asked for as `--graphics` does:
Kitty pictures sent once through Textual's writer, shown as placeholder cells and freed when the
sheet changes; Sixel pictures written over their blank cells when Textual paints those lines.
(Without a terminal the wizard draws half-blocks on its own: every snapshot is half-blocks.)"""

from __future__ import annotations

import base64
import re

import pytest
from textual.geometry import Region

from ltx_wizard.cli import build_parser
from ltx_wizard.tui.images import choice, kitty
from ltx_wizard.tui.options import WizardOptions
from ltx_wizard.tui.screens.monitor import MonitorScreen
from ltx_wizard.tui.screens.results import ResultsScreen
from ltx_wizard.tui.widgets import keyframes
from ltx_wizard.tui.widgets.keyframes import HALF, KeyframeStrip
from tests.eval_runs import laid_out_run
from tests.tui.test_term_images import _commands, _decode_sixel
from tests.tui.helpers import make_app, settle, wait_until


@pytest.fixture(autouse=True)
def _plain_env(monkeypatch):
    monkeypatch.delenv("TMUX", raising=False)
    monkeypatch.delenv("LTX_WIZARD_GRAPHICS", raising=False)


@pytest.fixture
def sent(monkeypatch):
    out: list[str] = []
    monkeypatch.setattr(keyframes, "emit", lambda app, data: out.append(data))
    return out


async def _sheets(pilot, count):
    await wait_until(
        pilot, lambda: isinstance(pilot.app.screen, MonitorScreen) and pilot.app.screen.status is not None
    )
    await pilot.press("e")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ResultsScreen))
    await settle(pilot)
    screen = pilot.app.screen
    await wait_until(
        pilot, lambda: len([s for s in screen.query(KeyframeStrip) if s.found is not None]) == count
    )
    return screen, list(screen.query(KeyframeStrip))


def test_the_graphics_option_reaches_the_wizard():
    args = build_parser(["--graphics", "sixel"]).parse_args(["--graphics", "sixel"])
    assert WizardOptions.from_args(args).graphics == "sixel"


async def test_kitty_pictures_are_sent_once_shown_as_placeholders_and_freed(tmp_path, sent):
    app = make_app(run_dir=str(laid_out_run(tmp_path)), graphics="kitty")
    async with app.run_test(size=(120, 40)) as pilot:
        screen, strips = await _sheets(pilot, 2)
        head = str(screen.query_one("#results-head").render())
        assert "Images: Kitty graphics (asked for with --graphics" in head
        commands = _commands("".join(sent))
        for strip in strips:
            drawing = strip.drawing
            assert drawing.graphics.protocol == choice.KITTY and len(drawing.ids) == 4
            for image_id, frame in zip(drawing.ids, drawing.found.frames):
                mine = [(keys, payload) for keys, payload in commands if keys.get("i") == str(image_id)]
                start = next(
                    n
                    for n, (keys, _) in enumerate(commands)
                    if keys.get("i") == str(image_id) and keys.get("a") == "t"
                )
                data = ""
                for keys, payload in commands[start:]:
                    data += payload
                    if keys["m"] == "0":
                        break
                assert base64.standard_b64decode(data) == frame.rgb  # the pixels, whole
                assert (
                    {
                        "a": "p",
                        "U": "1",
                        "i": str(image_id),
                        "c": str(drawing.cols),
                        "r": str(drawing.rows),
                        "q": "2",
                    },
                    "",
                ) in mine
            text = str(strip.render())
            assert HALF not in text
            rows = [line for line in text.split("\n") if kitty.PLACEHOLDER in line]
            assert len(rows) == drawing.rows
            assert all(line.count(kitty.PLACEHOLDER) == 4 * drawing.cols for line in rows)
        before = [i for s in strips for i in s.drawing.ids]
        sent.clear()
        await pilot.press("down")  # the next prompt's sheet: the old pictures are freed
        await settle(pilot)
        assert {f"\x1b_Ga=d,d=I,i={i},q=2\x1b\\" for i in before} <= {
            m for m in re.findall(r"\x1b_Ga=d[^\x1b]*\x1b\\", "".join(sent))
        }


async def test_sixel_pictures_ride_on_the_last_image_line(tmp_path, sent, monkeypatch):
    monkeypatch.setattr(choice, "cell_pixels", lambda fd=None: (10, 20))
    app = make_app(run_dir=str(laid_out_run(tmp_path)), graphics="sixel")
    async with app.run_test(size=(120, 40)) as pilot:
        screen, strips = await _sheets(pilot, 2)
        await settle(pilot)
        strip = strips[0]
        drawing = strip.drawing
        assert drawing.graphics.protocol == choice.SIXEL and sent in ([], [""], ["", ""])
        frame = drawing.found.frames[0]
        assert (frame.width, frame.height) == (drawing.cols * 10, drawing.rows * 20)
        lines = strip.render_lines(Region(0, 0, strip.size.width, strip.size.height))
        content = strip.content_region
        at = content.y - strip.region.y + drawing.rows  # the label line, then the image rows
        carried = [seg.text for seg in lines[at]._segments if "\x1bP" in seg.text]
        assert len(carried) == 1 and all(
            "\x1bP" not in seg.text for n, line in enumerate(lines) if n != at for seg in line._segments
        )
        assert lines[at].cell_length == strip.size.width  # the layout counts none of it
        pictures = re.findall(r"\x1b\[(\d+);(\d+)H(\x1bP.*?\x1b\\)", carried[0])
        assert len(pictures) == 4
        row, col, data = pictures[0]
        assert (int(row) - 1, int(col) - 1) == (content.y + 1, content.x)
        assert int(pictures[1][1]) - int(col) == drawing.cols + drawing.gap
        width, height, _, pixels = _decode_sixel(data)
        assert (width, height) == (frame.width, frame.height)
        assert all(p is not None for line in pixels for p in line)
        back = f"\x1b[{strip.region.y + at + 1};{strip.region.right + 1}H"
        assert carried[0].endswith(back)  # the cursor where the line's own text ends
        # under a dialog (F1's help) nothing is drawn over it; back on top, the pictures return
        await pilot.press("f1")
        await wait_until(pilot, lambda: app.screen is not screen)
        covered = strip.render_lines(Region(0, 0, strip.size.width, strip.size.height))
        assert not any("\x1bP" in seg.text for line in covered for seg in line._segments)
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen)
        again = strip.render_lines(Region(0, 0, strip.size.width, strip.size.height))
        assert any("\x1bP" in seg.text for seg in again[at]._segments)
