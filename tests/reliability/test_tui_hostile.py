"""Hostile text and folders in the TUI: shown as typed, never a crash, never a hang."""

from __future__ import annotations

import os

import pytest

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.tui.screens.existing_run import ExistingRunScreen
from ltx_wizard.tui.screens.probe import ProbeScreen
from tests.tui.helpers import fake_probe, make_app, settle

from .conftest import refused

NAMES = [
    "[bold red]H100[/] [link=http://x]click[/link]",  # markup that would restyle the screen
    "oops [/] [bold",  # markup that Textual cannot even parse
    "H100\x1b]0;pwned\x07\x1b[2J\r\nGPU",  # escape sequences and a line break
]


def _cell(app, row: int, col: int) -> str:
    table = app.screen.query_one("#gpus")
    return str(table.get_cell_at((row, col)))


@pytest.mark.parametrize("name", NAMES, ids=["markup", "broken-markup", "escapes"])
async def test_gpu_name_is_shown_as_text(name):
    app = make_app(probe_fn=fake_probe(name=name, mib=81559))
    async with app.run_test(size=(110, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ProbeScreen)
        shown = _cell(app, 0, 1)
        assert "\x1b" not in shown and "\n" not in shown and "\x07" not in shown
        if "\x1b" not in name:
            assert "[" in shown  # the brackets are visible, not eaten as markup
        assert app.is_running


async def test_probe_error_with_markup_is_shown_as_text():
    def failing():
        raise WizardError("driver says [bold]no[/ [red]")

    app = make_app(probe_fn=failing)
    async with app.run_test(size=(110, 30)) as pilot:
        await settle(pilot)
        status = str(app.screen.query_one("#probe-status").render())
        assert "driver says [bold]no[/ [red]" in status


def _run_folder(tmp_path, name: str = "run"):
    run = tmp_path / name
    run.mkdir()
    (run / "config.yaml").write_text("seed: 42\n")
    return run


@pytest.mark.parametrize(
    "plan", [b"# Plan\n\xff\xfe\xfd not UTF-8\n", "fifo", "huge"], ids=["not-utf8", "fifo", "huge"]
)
async def test_unreadable_plan_is_a_message_not_a_crash(tmp_path, plan):
    run = _run_folder(tmp_path)
    if plan == "fifo":
        os.mkfifo(run / "plan.md")
    elif plan == "huge":
        (run / "plan.md").write_bytes(b"#" * (3 << 20))
    else:
        (run / "plan.md").write_bytes(plan)
    app = make_app(run_dir=str(run), probe_fn=fake_probe(mib=81559))
    async with app.run_test(size=(110, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ExistingRunScreen)
        await pilot.press("v")
        await settle(pilot)
        assert not app.screen.query_one("#plan-view").display
        shown = " ".join(str(n.message) for n in app._notifications)
        assert "plan" in shown and ("UTF-8" in shown or "FIFO" in shown or "limit" in shown)
        assert app.is_running


async def test_run_folder_named_with_markup_is_shown_as_typed(tmp_path):
    run = _run_folder(tmp_path, "[red]run[bold] [")
    (run / "plan.md").write_text("# Plan\n")
    app = make_app(run_dir=str(run), probe_fn=fake_probe(mib=81559))
    async with app.run_test(size=(140, 30)) as pilot:
        await settle(pilot)
        assert "[red]run[bold] [" in str(app.screen.query_one("#existing-body").render())
        app.notify(f"cannot use {run}: [bold")  # a toast with the path must not crash either
        await settle(pilot)
        assert app.is_running


@pytest.mark.parametrize("kind", ["file", "link"])
def test_run_dir_that_is_a_file_or_a_planted_link_is_refused_before_the_screen(box, kind):
    target = box.root / "victim"
    target.mkdir()
    run = box.ws / "run"
    if kind == "file":
        run.write_text("notes\n")
    else:
        os.symlink(target, run)
    unchanged = box.freeze(skip=box.root / "none")
    words = "not a folder" if kind == "file" else "symlink"
    refused(box.cli("--run-dir", str(run), "--simulate", "h100"), 2, words)
    unchanged()
