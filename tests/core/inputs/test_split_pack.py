"""LTX 2.5 split packs: the video VAE always, the audio VAE only where the config loads it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.launch import accelerate_config
from ltx_wizard.demo.lookalike_checkout import make_checkout
from ltx_wizard.demo.lookalike_models import (
    make_checkpoint,
    make_data_root,
    make_packed_gemma,
    make_vae,
)
from ltx_wizard.core.plan.model_checks import run_checks
from ltx_wizard.core.inputs.split_pack import audio_vae_reason
from ltx_wizard.core.io.yaml_patch import get_dotted, load_yaml

CONFIGS = "packages/ltx-trainer/configs"


@pytest.mark.parametrize(
    ("validation", "needed"),
    [
        ({}, "generate_audio"),  # the trainer's default is True
        ({"generate_audio": True}, "generate_audio"),
        ({"generate_audio": False}, None),
        (
            {
                "generate_audio": False,
                "samples": [{"prompt": "x", "conditions": [{"type": "audio_to_video", "audio": "a.wav"}]}],
            },
            "audio_to_video",
        ),
        (
            {
                "generate_audio": False,
                "samples": [{"prompt": "x", "conditions": [{"type": "prefix", "audio": "a.wav"}]}],
            },
            "prefix condition carries audio",
        ),
        (
            {
                "generate_audio": False,
                "samples": [{"prompt": "x", "conditions": [{"type": "prefix", "video": "v.mp4"}]}],
            },
            None,
        ),
    ],
)
def test_audio_vae_is_needed_only_where_validation_touches_audio(validation, needed):
    reason = audio_vae_reason({"validation": validation})
    assert (reason is None) if needed is None else (needed in reason)


def test_check_demands_the_video_vae_but_not_an_unused_audio_vae(tmp_path):
    ckpt = make_checkpoint(tmp_path / "t.safetensors", split=True, gemma_version="4")
    gemma = make_packed_gemma(tmp_path / "g.safetensors", gemma_version="4", model_type="gemma4")
    items = {i.name: i for i in run_checks(ckpt, gemma, audio_vae_reason=None)}
    assert not items["video_vae"].ok and "audio_vae" not in items
    items = {i.name: i for i in run_checks(ckpt, gemma)}  # default: shipped configs decode audio
    assert "generate audio in validation" in items["audio_vae"].error


def _argv(tmp_path, checkout, *extra):
    ckpt = make_checkpoint(tmp_path / "split" / "transformer.safetensors", split=True)
    gemma = make_packed_gemma(tmp_path / "split" / "gemma.safetensors")
    data = make_data_root(tmp_path / "data", 3)
    return [
        "plan",
        "--trainer-root",
        str(checkout),
        "--checkpoint",
        str(ckpt),
        "--text-encoder",
        str(gemma),
        "--data-root",
        str(data),
        "--workspace",
        str(tmp_path / "ws"),
        "--run-name",
        "run",
        "--simulate",
        "h100",
        *extra,
    ]


def test_plan_without_audio_vae_when_validation_makes_no_audio(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(accelerate_config, "accelerate_available", lambda: False)
    checkout = make_checkout(tmp_path / "LTX-2")
    shipped = checkout / CONFIGS / "t2v_lora.yaml"
    shipped.write_text(shipped.read_text().replace("generate_audio: true", "generate_audio: false"))
    assert get_dotted(load_yaml(shipped.read_text()), "validation.generate_audio") is False
    vv = make_vae(tmp_path / "split" / "video_vae.safetensors", "video")
    assert main([*_argv(tmp_path, checkout, "--video-vae", str(vv)), "--json"]) == 0
    config = load_yaml(Path(json.loads(capsys.readouterr().out)["config"]).read_text())
    assert get_dotted(config, "model.video_vae_path") == str(vv)
    assert get_dotted(config, "model.audio_vae_path", None) is None


def test_plan_refuses_a_missing_audio_vae_when_validation_decodes_audio(tmp_path, capsys):
    checkout = make_checkout(tmp_path / "LTX-2")
    shipped = checkout / CONFIGS / "t2v_lora.yaml"  # as the trainer ships it: generate_audio on
    assert get_dotted(load_yaml(shipped.read_text()), "validation.generate_audio") is True
    vv = make_vae(tmp_path / "split" / "video_vae.safetensors", "video")
    assert main(_argv(tmp_path, checkout, "--video-vae", str(vv))) == 2
    err = capsys.readouterr().err
    assert "--audio-vae FILE" in err and "validation.generate_audio is on" in err
    assert not (tmp_path / "ws" / "run").exists()
