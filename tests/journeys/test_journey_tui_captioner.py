"""Journey c of issue 40: the TUI's Prepare on a card under 40 GiB (a simulated RTX 5090, 32 GB),
where the local Qwen3-Omni server does not fit. The user types the URL of a captioner server
elsewhere (here the stand-in vLLM server, demo/sim/captioner.py, on 127.0.0.1, speaking the chat
completions route caption_videos.py calls); the captions come from it and the dataset file has
them. Before it, the two dead ends the screen used to leave: a bad URL is said under the field,
and qwen_omni without a URL names the field to fill, not a command-line flag."""

from __future__ import annotations

import json

import pytest

from ltx_wizard.demo.sim.captioner import start_in_thread
from ltx_wizard.tui.dialogs.confirm import ConfirmDialog
from ltx_wizard.tui.dialogs.spot_check import SpotCheckDialog
from ltx_wizard.tui.screens.prepare import PrepareScreen
from tests.tui.helpers import make_app, settle, wait_until


@pytest.fixture
def demo_root(tmp_path):
    root = tmp_path / "demo"
    root.mkdir()
    return root


@pytest.fixture
def server():
    httpd, url = start_in_thread()
    yield httpd, url
    httpd.shutdown()
    httpd.server_close()


async def _to_prepare(pilot, app):
    await settle(pilot)
    await pilot.press("ctrl+n")
    await wait_until(pilot, lambda: isinstance(app.screen, PrepareScreen))
    await wait_until(pilot, lambda: (app.demo.root / "raw-clips" / "quiet.mp4").is_file())
    await settle(pilot)


async def _type_url(pilot, text: str) -> None:
    field = pilot.app.screen.query_one("#prep-vllm-url")
    await pilot.click("#prep-vllm-url")
    await wait_until(pilot, lambda: field.has_focus)
    field.value = ""
    await pilot.press(*text)
    await wait_until(pilot, lambda: field.value == text)


def _auto(screen) -> str:
    """The label the captioner choice shows for `auto` (what the box would use)."""
    select = screen.query_one("#prep-captioner")
    return str(next(label for label, value in select._options if value == "auto"))


def _verdict(app) -> str:
    return str(app.screen.query_one("#prep-url-verdict").render())


async def test_a_captioner_url_typed_on_a_small_card_captions_the_clips(demo_root, server, monkeypatch):
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    httpd, url = server
    app = make_app(demo_root, demo_data="raw", simulate="rtx5090")
    async with app.run_test(size=(120, 40)) as pilot:
        await _to_prepare(pilot, app)
        screen = app.screen
        # auto on this card: no captioner (the server needs 40 GiB free; no key)
        await wait_until(pilot, lambda: "none here" in _auto(screen))
        # a bad URL: said under the field at once; Prepare does not start
        await _type_url(pilot, "localhost:8001")
        await wait_until(pilot, lambda: "is not an http:// or https:// address" in _verdict(app))
        assert 'the "Captioner server URL" field' in _verdict(app)
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert not screen.running and screen.result is None and not httpd.requests
        # the server's URL: auto now names it
        await _type_url(pilot, url)
        await wait_until(pilot, lambda: _verdict(app) == "")
        await wait_until(pilot, lambda: f"qwen_omni at {url}" in _auto(screen))
        screen.query_one("#prep-holdout").value = "0"
        await pilot.press("ctrl+n")
        await wait_until(
            pilot, lambda: isinstance(app.screen, ConfirmDialog) and "rotated" in app.screen.question
        )
        await pilot.press("y")
        await wait_until(pilot, lambda: isinstance(app.screen, SpotCheckDialog))
        spot = list(app.screen.shown)
        assert len(spot) == 3 and len(httpd.requests) >= 3  # the samples came from that server
        await pilot.press("a")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, PrepareScreen) and app.screen.result is not None,
            limit_s=120,
        )
        result = app.screen.result
        rows = json.loads(result.dataset_file.read_text())
        asked = [p for p in httpd.requests if p.rstrip("/") == "/v1/chat/completions"]
        assert len(asked) == len(rows) > 3  # one request per clip: 3 samples, then the rest
        assert all(r["caption"].startswith("A ") and " frames at " in r["caption"] for r in rows)
        for clip, caption in spot:  # what the spot check showed is what the dataset holds
            assert next(r["caption"] for r in rows if r["video"] == clip) == caption
        log = "\n".join(screen.said)
        assert f"Captioner: qwen_omni (the Qwen3-Omni server at {url})" in log
        assert not list(result.run_dir.glob("logs/prepare-captioner-server.log"))  # none started here
        record = json.loads((result.dataset_file.parent / "prepare.json").read_text())
        assert record["captioner"] == "qwen_omni" and url in record["captioner_why"]


async def test_qwen_omni_without_a_url_on_a_small_card_names_the_screens_field(demo_root, monkeypatch):
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    app = make_app(demo_root, demo_data="raw", simulate="rtx5090")
    async with app.run_test(size=(120, 40)) as pilot:
        await _to_prepare(pilot, app)
        app.screen.query_one("#prep-captioner").value = "qwen_omni"
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: app.screen.has_class("-failed"))
        status = str(app.screen.query_one("#prep-status").render())
        assert 'give a server elsewhere (the "Captioner server URL" field)' in status
        assert 'or Captioner "gemini_flash" with GEMINI_API_KEY set' in status
        assert "--vllm-url" not in status and "--captioner" not in status


async def test_ltx_wizard_vllm_url_fills_the_field_and_a_bad_one_stops_before_the_screen(
    demo_root, server, monkeypatch, capsys
):
    from ltx_wizard.cli import build_parser, main

    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    assert main(["--simulate", "rtx5090", "--vllm-url", "gpu-box:8001"]) == 2
    assert (
        "the captioner server URL 'gpu-box:8001' (--vllm-url URL) is not an http" in capsys.readouterr().err
    )
    _, url = server
    args = build_parser(["--demo"]).parse_args(["--demo", "--simulate", "rtx5090", "--vllm-url", url])
    app = make_app(demo_root, demo_data="raw", simulate="rtx5090", vllm_url=args.vllm_url)
    async with app.run_test(size=(120, 40)) as pilot:
        await _to_prepare(pilot, app)
        assert app.screen.query_one("#prep-vllm-url").value == url
        await wait_until(pilot, lambda: f"qwen_omni at {url}" in _auto(app.screen))
        assert app.screen.request().vllm_url == url
