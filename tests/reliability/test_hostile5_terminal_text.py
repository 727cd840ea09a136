"""Round five, item 1: text the wizard did not write never reaches the terminal raw.

A prompt in prompts.json and a caption the captioner answered can hold escape sequences (OSC 0
retitles the window, OSC 52 writes the clipboard) and Textual markup; each is shown through the
one sanitiser (core/base/text_safety.py), newlines kept only where a block is meant.
"""

from __future__ import annotations

import argparse
import asyncio

import pytest

from ltx_wizard.core.evaluation.layout import Render, read_manifest, write_manifest
from ltx_wizard.core.base.text_safety import clean_block, clean_text

TITLE = "\x1b]0;PWNTITLE\x07"
CLIPBOARD = "\x1b]52;c;cm0gLXJmIH4K\x07"
HOSTILE = f"a kite {TITLE}[b]bold[/b] over{CLIPBOARD} the sea\u202e\x9b2J"


def test_clean_block_keeps_lines_and_drops_escapes():
    assert clean_block(f"one{TITLE}\r\ntwo\rthree\u2028") == "one\ntwo\nthree"
    assert clean_text(f"one{TITLE}\ntwo") == "one⏎two"


def test_spot_check_prints_the_captioners_answer_sanitised(capsys):
    from ltx_wizard.commands.prepare import TerminalAsker

    asker = TerminalAsker(argparse.Namespace(yes=True, drop_uncaptioned=False))
    caption = f"A cat {TITLE}walks.\nIt sits{CLIPBOARD}."
    assert asyncio.run(asker.approve_captions([(f"clip{TITLE}.mp4", caption)])) is True
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x07" not in err
    assert "A cat walks.\nIt sits." in err  # the caption stays a block: its newline kept
    assert "clip.mp4:" in err


def _hostile_manifest(run) -> None:
    manifest = read_manifest(run)
    assert manifest is not None
    renders = {}
    for file, render in manifest.renders.items():
        renders[file] = Render(
            render.file,
            render.category,
            HOSTILE if render.category == "in-distribution" else render.prompt,
            render.seed,
            render.lora,
            render.made_by,
            f"int8{TITLE}",
            render.video_dims,
            render.source,
        )
    manifest.renders = renders
    write_manifest(run, manifest)


@pytest.mark.usefixtures("_halfblocks")
async def test_results_screen_draws_a_hostile_prompt_as_plain_text(tmp_path):
    from ltx_wizard.tui.screens.monitor import MonitorScreen
    from ltx_wizard.tui.screens.results import ResultsScreen
    from textual.widgets import OptionList
    from tests.eval_runs import laid_out_run
    from tests.tui.helpers import make_app, wait_until

    run = laid_out_run(tmp_path)
    _hostile_manifest(run)
    app = make_app(run_dir=str(run))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(
            pilot, lambda: isinstance(app.screen, MonitorScreen) and app.screen.status is not None
        )
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, ResultsScreen))
        screen = app.screen
        options = screen.query_one("#results-list", OptionList)
        await wait_until(pilot, lambda: options.option_count >= 2)
        first = str(options.get_option_at_index(0).prompt)
        assert "\x1b" not in first and "\x07" not in first and "\u202e" not in first
        assert "[b]bold[/b]" in first  # shown as typed, never parsed as markup
        await wait_until(pilot, lambda: "kite" in str(screen.query_one("#sheet-title").render()))
        title = str(screen.query_one("#sheet-title").render())
        assert "\x1b" not in title and "[b]bold[/b]" in title
        labels = [str(strip.label) for strip in screen.query("KeyframeStrip")]
        assert labels and all("\x1b" not in label for label in labels)


@pytest.fixture
def _halfblocks(monkeypatch):
    monkeypatch.delenv("TMUX", raising=False)
    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "0")
    monkeypatch.setenv("LTX_WIZARD_GRAPHICS", "halfblocks")
