"""The Prepare screen and `ltx-wizard prepare` build their request through the one adapter
(core/prepare/prepare_request.py build_prepare_request): the same inputs give the same request, and a
bad one the same words on both."""

from __future__ import annotations

import dataclasses

from ltx_wizard.cli import build_parser, main
from ltx_wizard.commands.prepare import request_from
from ltx_wizard.tui.screens.prepare.choices import TUI_KNOBS
from ltx_wizard.tui.screens.prepare import PrepareScreen
from tests.tui.helpers import make_app, settle, wait_until

TYPED = {  # as a user types them, stray spaces included
    "run_name": " my-run ",
    "holdout": " 2 ",
    "lora_trigger": " sks ",
    "vllm_url": "http://10.0.0.5:8001/v1/",
    "captions": "~/caps.csv",
}


async def _prepare_screen(pilot, app) -> PrepareScreen:
    await settle(pilot)
    await pilot.press("ctrl+n")
    await wait_until(pilot, lambda: isinstance(app.screen, PrepareScreen))
    await settle(pilot)
    assert isinstance(app.screen, PrepareScreen)
    return app.screen


def _fill(screen: PrepareScreen, source: str, **typed: str) -> None:
    screen.query_one("#input-source").value = source
    screen.query_one("#prep-run-name").value = typed.get("run_name", "")
    screen.query_one("#prep-holdout").value = typed.get("holdout", "")
    screen.query_one("#prep-trigger").value = typed.get("lora_trigger", "")
    screen.query_one("#prep-vllm-url").value = typed.get("vllm_url", "")
    screen.query_one("#input-captions").value = typed.get("captions", "")
    screen.query_one("#prep-split").value = True
    screen.query_one("#prep-captioner").value = "qwen_omni"


def _cli_args(source: str, trainer: str, workspace: str, **typed: str) -> list[str]:
    argv = ["prepare", source, "--trainer-root", trainer, "--workspace", workspace, "--split-scenes"]
    argv += ["--captioner", "qwen_omni"]
    for name, flag in (
        ("run_name", "--run-name"),
        ("holdout", "--holdout"),
        ("lora_trigger", "--lora-trigger"),
        ("vllm_url", "--vllm-url"),
        ("captions", "--captions"),
    ):
        if name in typed:
            argv += [flag, typed[name]]
    return argv


async def test_the_screen_and_the_command_line_build_the_same_request(demo_root, tmp_path):
    source = str(tmp_path / "clips")
    app = make_app(demo_root, demo_data="raw")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _prepare_screen(pilot, app)
        _fill(screen, source, **TYPED)
        await settle(pilot)
        on_screen = screen.request()
        trainer = screen.query_one("#input-trainer").value
        workspace = str(app.workspace)
    typed = build_parser().parse_args(_cli_args(source, trainer, workspace, **TYPED))
    on_cli = request_from(typed)
    # the same request; only how advice names a setting differs (a flag, or the screen's field)
    assert on_screen == dataclasses.replace(on_cli, knobs=TUI_KNOBS)
    assert (on_cli.run_name, on_cli.holdout, on_cli.lora_trigger) == ("my-run", "2", "sks")
    assert on_cli.vllm_url == "http://10.0.0.5:8001/v1"


async def test_a_bad_run_name_is_refused_in_the_same_words_on_both(demo_root, tmp_path, capsys):
    source = tmp_path / "clips"
    source.mkdir()
    app = make_app(demo_root, demo_data="raw")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _prepare_screen(pilot, app)
        _fill(screen, str(source), run_name="a/b")
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: not screen.running and screen.has_class("-failed"))
        status = str(screen.query_one("#prep-status").render())
        trainer = screen.query_one("#input-trainer").value
        workspace = str(app.workspace)
    assert main(_cli_args(str(source), trainer, workspace, run_name="a/b")) == 2
    said = capsys.readouterr().err
    words = "run name 'a/b' contains a slash: use letters, digits, '-', '_' and '.'"
    assert words in said and words in " ".join(status.split())
