"""`ltx-wizard check` and `ltx-wizard discover` as a user runs them."""

from __future__ import annotations

import json
import os

import pytest

from ltx_wizard.cli import main
from ltx_wizard.demo.lookalike_checkout import make_checkout
from ltx_wizard.demo.lookalike_models import (
    make_checkpoint,
    make_data_root,
    make_gemma_dir,
    make_packed_gemma,
    make_vae,
)


@pytest.fixture
def good(tmp_path):
    models = tmp_path / "my models $(rm -rf x) 'q' é"
    return {
        "ckpt": make_checkpoint(models / 'ltx-2 "dev".safetensors', params_b=22.0),
        "te": make_gemma_dir(models / "gemma 3"),
        "data": make_data_root(tmp_path / "data set", 3, orphans=1),
        "checkout": make_checkout(tmp_path / "LTX-2"),
    }


def _tree(root):
    return sorted(
        (p, os.stat(os.path.join(p, n)).st_mtime_ns) for p, _d, names in os.walk(root) for n in names
    )


def test_all_good_exits_0_with_one_line_per_item(tmp_path, good, capsys, monkeypatch, tmp_path_factory):
    bin_dir = tmp_path_factory.mktemp("bin")  # uv on PATH: else the checkout line is a warning
    (bin_dir / "uv").write_text("#!/bin/sh\n")
    (bin_dir / "uv").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    before = _tree(tmp_path)
    rc = main(
        [
            "check",
            "--checkpoint",
            str(good["ckpt"]),
            "--text-encoder",
            str(good["te"]),
            "--data-root",
            str(good["data"]),
            "--trainer-root",
            str(good["checkout"]),
        ]
    )
    out, err = capsys.readouterr()
    assert rc == 0, out + err
    lines = out.splitlines()
    # the orphan file is a warning, as plan.md says it (check runs plan's own data step)
    assert [line.split()[:2] for line in lines] == [
        ["ok", "checkpoint"],
        ["ok", "text_encoder"],
        ["warn", "data_root"],
        ["ok", "trainer_root"],
    ]
    assert "22.0 B params, bf16, 44 GB" in lines[0] and str(good["ckpt"]) in lines[0]
    assert "matches the checkpoint" in lines[1]
    assert "3 samples" in lines[2] and "1 orphan" in lines[2]
    assert _tree(tmp_path) == before  # nothing written anywhere


def test_failures_exit_2_each_with_its_own_line(tmp_path, good, capsys):
    rc = main(
        [
            "check",
            "--checkpoint",
            "https://hf.co/ltx-2.safetensors",
            "--text-encoder",
            str(tmp_path / "missing gemma"),
            "--data-root",
            str(tmp_path),
        ]
    )
    out, err = capsys.readouterr()
    assert rc == 2
    lines = out.splitlines()
    assert [line.split()[:2] for line in lines] == [
        ["FAIL", "checkpoint"],
        ["FAIL", "text_encoder"],
        ["FAIL", "data_root"],
    ]
    assert "is a URL: local files only" in lines[0]
    assert "missing gemma does not exist" in lines[1]
    assert "has no conditions/, latents/, audio_latents/" in lines[2]  # the shipped t2v strategy's
    assert "3 of 3 checks failed" in err and "Traceback" not in err


@pytest.mark.parametrize("hostile", ["/dev/zero", "", "~/nothing.safetensors", "s3://b/k", "file:///x"])
def test_hostile_checkpoint_never_tracebacks(good, capsys, hostile):
    rc = main(["check", "--checkpoint", hostile, "--text-encoder", str(good["te"])])
    out, err = capsys.readouterr()
    assert rc == 2 and out.startswith("FAIL  checkpoint") and "Traceback" not in out + err


def test_gemma_mismatch_is_one_clear_line(tmp_path, capsys):
    ckpt = make_checkpoint(tmp_path / "ltx-2.5.safetensors", gemma_version="4", model_version="2.5.0")
    te = make_gemma_dir(tmp_path / "gemma-3", gemma_version="3")
    rc = main(["check", "--checkpoint", str(ckpt), "--text-encoder", str(te)])
    out, _ = capsys.readouterr()
    assert rc == 2
    assert out.splitlines()[0].startswith("ok    checkpoint")
    assert "Gemma version mismatch" in out.splitlines()[1] and "needs gemma_version 4" in out


def test_split_pack_requires_and_validates_the_vaes(tmp_path, capsys):
    ckpt = make_checkpoint(tmp_path / "t.safetensors", split=True, gemma_version="4")
    te = make_packed_gemma(tmp_path / "g.safetensors", gemma_version="4", model_type="gemma4")
    rc = main(["check", "--checkpoint", str(ckpt), "--text-encoder", str(te), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert rc == 2 and report["ok"] is False
    assert [(i["name"], i["ok"]) for i in report["items"]] == [
        ("checkpoint", True),
        ("text_encoder", True),
        ("video_vae", False),
        ("audio_vae", False),
    ]
    assert "split pack, which needs it; pass --video-vae FILE" in report["items"][2]["error"]
    video, audio = (
        make_vae(tmp_path / "v.safetensors", "video"),
        make_vae(tmp_path / "a.safetensors", "audio"),
    )
    rc = main(
        [
            "check",
            "--checkpoint",
            str(ckpt),
            "--text-encoder",
            str(te),
            "--video-vae",
            str(video),
            "--audio-vae",
            str(audio),
            "--json",
        ]
    )
    report = json.loads(capsys.readouterr().out)
    assert rc == 0 and report["ok"] is True
    assert set(report["items"][0]) == {"name", "ok", "path", "summary", "error", "warning"}
    rc = main(
        [
            "check",
            "--checkpoint",
            str(ckpt),
            "--text-encoder",
            str(te),
            "--video-vae",
            str(audio),
            "--audio-vae",
            str(video),
        ]
    )
    assert rc == 2 and "swap --video-vae and --audio-vae" in capsys.readouterr().out


def test_trainer_root_before_the_command_is_honoured(tmp_path, good, capsys):
    bad = tmp_path / "not-a-checkout"
    bad.mkdir()
    rc = main(
        [
            "--trainer-root",
            str(bad),
            "check",
            "--checkpoint",
            str(good["ckpt"]),
            "--text-encoder",
            str(good["te"]),
        ]
    )
    out, _ = capsys.readouterr()
    assert rc == 2 and "FAIL  trainer_root" in out and "not an LTX-2 checkout" in out


def test_relative_paths_resolve_against_cwd(tmp_path, good, capsys, monkeypatch):
    monkeypatch.chdir(good["ckpt"].parent)
    rc = main(["check", "--checkpoint", good["ckpt"].name, "--text-encoder", "gemma 3", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert rc == 0 and report["items"][0]["path"] == str(good["ckpt"])


def _check_data(good, data, *extra):
    return main(
        [
            "check",
            "--checkpoint",
            str(good["ckpt"]),
            "--text-encoder",
            str(good["te"]),
            "--data-root",
            str(data),
            "--trainer-root",
            str(good["checkout"]),
            *extra,
        ]
    )


def test_video_only_data_fails_naming_the_folder_and_the_option(tmp_path, good, capsys):
    data = make_data_root(tmp_path / "clips", 3, audio=False)
    assert _check_data(good, data) == 2
    out = capsys.readouterr().out
    (line,) = [ln for ln in out.splitlines() if "data_root" in ln]
    assert line.startswith("FAIL") and "has no audio_latents/" in line
    assert "--video-only" in line and "training_strategy.audio: null" in line
    assert _check_data(good, data, "--video-only") == 0
    out = capsys.readouterr().out
    assert "3 samples in conditions, latents (video only)" in out
    assert _check_data(good, data, "--json") == 2
    (item,) = [i for i in json.loads(capsys.readouterr().out)["items"] if i["name"] == "data_root"]
    assert item["video_only_data"] is True


def test_partial_audio_counts_only_clips_with_audio(tmp_path, good, capsys):
    data = make_data_root(tmp_path / "clips", 4)
    (data / "audio_latents" / "sample_0003.pt").unlink()
    assert _check_data(good, data) == 0
    out = capsys.readouterr().out
    assert "3 samples in conditions, latents, audio_latents" in out
    assert "1 latents/ file(s) have no audio_latents/ file" in out


def test_with_audio_is_deprecated_and_changes_nothing(good, capsys):
    assert _check_data(good, good["data"], "--with-audio") == 0
    out, err = capsys.readouterr()
    assert "--with-audio is deprecated and ignored" in err and "warn  data_root" in out  # orphans


def test_discover_lists_ranked_candidates(good, capsys):
    rc = main(["discover", "--models-dir", str(good["ckpt"].parent)])
    out, _ = capsys.readouterr()
    assert rc == 0
    assert "  1. checkpoint" in out and "why: unified checkpoint with a matching Gemma" in out
    assert "  2. text_encoder" in out
    rc = main(["discover", "--models-dir", str(good["ckpt"].parent), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert data["candidates"][0]["text_encoder"] == str(good["te"])
    assert data["timed_out"] is False


def test_discover_nothing_found_says_what_to_do(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert main(["discover", "--models-dir", str(tmp_path / "empty")]) == 0
    out = capsys.readouterr().out
    assert "nothing found: pass --models-dir" in out and "hf download" in out
    # Which folders were searched, and which were not there, one per line.
    assert f"\n  {tmp_path / 'empty'}\n" in out and "not there: /models" in out
    assert f"Hugging Face cache {tmp_path / 'home' / '.cache' / 'huggingface' / 'hub'}: no downloads" in out
    assert main(["discover", "--models-dir", str(tmp_path / "empty"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["roots"] == [str(tmp_path / "empty")] and "/models" in data["missing_roots"]
    assert data["hf_cache"].endswith("huggingface/hub")


def test_discover_bad_models_dir_exits_2(tmp_path, capsys):
    assert main(["discover", "--models-dir", str(tmp_path / "nope")]) == 2
    assert "--models-dir" in capsys.readouterr().err


def test_a_gemma_warning_is_the_items_warning_in_json_and_a_warn_line(tmp_path, capsys):
    # ltx-core only warns here (encoder_configurator.py _check_gemma_version): a 2.5 checkpoint
    # that declares no Gemma beside a Gemma that declares no version
    ckpt = make_checkpoint(tmp_path / "ltx-2.5.safetensors", gemma_version=None, model_version="2.5.0")
    te = make_gemma_dir(tmp_path / "gemma", gemma_version=None)
    rc = main(["check", "--checkpoint", str(ckpt), "--text-encoder", str(te), "--json"])
    item = json.loads(capsys.readouterr().out)["items"][1]
    assert rc == 0 and item["name"] == "text_encoder" and item["ok"] is True
    assert item["warning"] and "skips its version check" in item["warning"]
    assert item["warning"] in item["summary"]
    rc = main(["check", "--checkpoint", str(ckpt), "--text-encoder", str(te)])
    line = capsys.readouterr().out.splitlines()[1]
    assert rc == 0 and line.startswith("warn  text_encoder") and "skips its version check" in line
