"""F3 on the Paths screen: the release's files offered one at a time, a download only after y,
a gated file refused without a token; the downloaded file fills its field (then checked)."""

from __future__ import annotations

import pytest

pytest.importorskip("huggingface_hub")

from ltx_wizard.tui.dialogs.download import DownloadDialog
from ltx_wizard.tui.screens.paths import PathsScreen
from tests.hf_standin import Hub
from tests.tui.helpers import make_app, settle, wait_until

CKPT = "ltx-2.3-22b-dev.safetensors"


async def test_f3_offers_each_file_and_downloads_only_a_yes(demo_root, monkeypatch, tmp_path):
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("LTX_MODELS_DIR", str(tmp_path / "models"))
    with Hub() as hub:
        hub.add("Lightricks/LTX-2.3", {CKPT: b"C" * 5000})
        hub.add("google/gemma-3-12b-it-qat-q4_0-unquantized", {"config.json": b"{}"}, gated=True)
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        app = make_app(demo_root)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press("ctrl+n")
            await wait_until(pilot, lambda: isinstance(app.screen, PathsScreen))
            await pilot.press("f3")
            await wait_until(pilot, lambda: isinstance(app.screen, DownloadDialog))
            await pilot.press("3")
            await wait_until(pilot, lambda: app.screen.index == 0)
            body = str(app.screen.query_one("#dl-body").render())
            assert "1 of 2" in body and CKPT in body and "y downloads it" in body
            assert hub.downloads == []  # nothing before the yes
            await pilot.press("y")
            await wait_until(pilot, lambda: app.screen.index == 1)
            body = str(app.screen.query_one("#dl-body").render())
            assert "Not offered" in body and "is gated" in body
            await pilot.press("n")
            await wait_until(pilot, lambda: isinstance(app.screen, PathsScreen))
            await settle(pilot)
            wanted = str(tmp_path / "models" / "ltx-2.3" / CKPT)
            assert app.screen.query_one("#field-checkpoint").value == wanted
            assert hub.downloads == [f"Lightricks/LTX-2.3/{CKPT}@0"]
