"""Models offered for download: one file at a time, each after an explicit yes, with size, free
disk, gated-terms notice and token state; refusals for no disk, no token and gated access.
Against a local stand-in of the Hub endpoint (tests/hf_standin.py), never the network."""

from __future__ import annotations

import io
from collections import namedtuple

import pytest

pytest.importorskip("huggingface_hub")

from ltx_wizard.cli import main
from ltx_wizard.core.inputs import model_download
from ltx_wizard.core.inputs.model_download import download, make_offers
from tests.hf_standin import Hub

GEMMA = "google/gemma-3-12b-it-qat-q4_0-unquantized"
CKPT = "ltx-2.3-22b-dev.safetensors"


@pytest.fixture
def hub(monkeypatch, tmp_path):
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))  # no saved login
    with Hub() as stand_in:
        stand_in.add("Lightricks/LTX-2.3", {CKPT: b"C" * 4000, "other.safetensors": b"o"})
        stand_in.add(GEMMA, {"config.json": b"{}", "model.safetensors": b"G" * 3000}, gated=True)
        monkeypatch.setenv("HF_ENDPOINT", stand_in.url)
        yield stand_in


def test_offers_name_size_destination_and_the_gated_notice(hub, tmp_path):
    ckpt, gemma = make_offers("ltx-2.3")
    assert ckpt.size_bytes == 4000 and ckpt.dest == tmp_path / "home" / "models" / "ltx-2.3"
    assert ckpt.refusal == "" and "no Hugging Face token found" in ckpt.line()
    assert gemma.size_bytes == 3002 and gemma.gated
    assert f"accept the terms at https://huggingface.co/{GEMMA}" in gemma.line()


def test_gated_without_token_is_refused(hub):
    gemma = make_offers("ltx-2.3", ["text_encoder"])[0]
    assert "is gated" in gemma.refusal and "hf auth login" in gemma.refusal
    with pytest.raises(Exception, match="is gated"):
        download(gemma)
    assert hub.downloads == []


def test_token_without_accepted_terms_is_refused_then_allowed(hub, monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "hf_user")
    gemma = make_offers("ltx-2.3", ["text_encoder"])[0]
    assert "has no access" in gemma.refusal
    hub.grants.add(("hf_user", GEMMA))
    gemma = make_offers("ltx-2.3", ["text_encoder"])[0]
    assert gemma.refusal == ""
    folder = download(gemma)
    assert (folder / "model.safetensors").read_bytes() == b"G" * 3000


def test_no_disk_is_refused(hub, monkeypatch):
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(model_download.shutil, "disk_usage", lambda p: usage(10_000, 9_000, 1_000))
    ckpt = make_offers("ltx-2.3", ["checkpoint"])[0]
    assert "needs" in ckpt.refusal and "LTX_MODELS_DIR" in ckpt.refusal


def test_cli_asks_one_file_at_a_time_and_downloads_only_a_yes(hub, monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("LTX_MODELS_DIR", str(tmp_path / "mine"))
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))
    code = main(["models", "--release", "ltx-2.3"])
    out, err = capsys.readouterr()
    assert code == 2  # the gated Gemma was refused (no token)
    assert "Download Lightricks/LTX-2.3/ltx-2.3-22b-dev.safetensors? [y/N]" in err
    assert "not offered: " in err and "is gated" in err
    assert hub.downloads == [f"Lightricks/LTX-2.3/{CKPT}@0"]  # nothing else fetched
    assert f"checkpoint={tmp_path / 'mine' / 'ltx-2.3' / CKPT}" in out
    assert "checkpoint:" in err  # checked as a typed path (these bytes are no safetensors)


def test_cli_no_answer_downloads_nothing(hub, monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["models", "--release", "ltx-2.3", "--only", "checkpoint"]) == 0
    assert "skipped" in capsys.readouterr().err and hub.downloads == []
