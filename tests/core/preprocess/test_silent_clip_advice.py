"""A clip without sound that the plan could not see (nothing could read the clips then): the
preprocessing writes no audio latents for it, and the failure names it with the ways on (take it
out, --video-only, or go on without it as the trainer would), instead of torchaudio advice."""

from __future__ import annotations

import sys

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.launch import accelerate_config
from ltx_wizard.core.preprocess.preprocess_state import read_state
from ltx_wizard.demo.lookalike_checkout import make_checkout
from ltx_wizard.demo.lookalike_media import make_clip_dataset
from ltx_wizard.demo.lookalike_models import make_checkpoint, make_gemma_dir
from tests.ffprobe_modes import hide_ffprobe


@pytest.fixture
def planned_blind(tmp_path, monkeypatch, capsys):
    """A run planned while neither PyAV nor ffprobe could read the clips; the first is silent."""
    monkeypatch.setattr(accelerate_config, "accelerate_available", lambda: False)
    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "0")
    make_checkout(tmp_path / "LTX-2")
    make_checkpoint(tmp_path / "models" / "ckpt.safetensors", params_b=22)
    make_gemma_dir(tmp_path / "models" / "gemma")
    dataset = make_clip_dataset(tmp_path / "cats", [{"audio": False, "frames": 49}, {"frames": 49}])
    with monkeypatch.context() as blind:
        blind.setitem(sys.modules, "av", None)
        hide_ffprobe(blind)
        code = main(
            [
                "plan",
                "--trainer-root",
                str(tmp_path / "LTX-2"),
                "--checkpoint",
                str(tmp_path / "models" / "ckpt.safetensors"),
                "--text-encoder",
                str(tmp_path / "models" / "gemma"),
                "--dataset",
                str(dataset),
                "--workspace",
                str(tmp_path / "ws"),
                "--run-name",
                "run",
                "--simulate",
                "a6000",
            ]
        )
    assert code == 0, capsys.readouterr().err
    capsys.readouterr()
    return tmp_path / "ws" / "run", dataset


def test_the_silent_clip_is_named_with_its_options_and_a_rerun_goes_on(planned_blind, capsys):
    run, dataset = planned_blind
    assert read_state(run).silent == ()  # nothing read at plan time
    assert main(["preprocess", str(run), "--one-sample", "--simulate", "a6000"]) == 1
    err = capsys.readouterr().err.strip().splitlines()[-1]  # after the progress lines
    assert err.startswith("ltx-wizard: the one-sample") and "torchaudio" not in err
    assert (
        "one-sample preprocess wrote no audio latents for 1 clip(s) the recipe trains with "
        "sound: videos/clip_00.mp4 (its log says 1 videos without audio (skipped)"
    ) in err
    assert f"take them out of {dataset}" in err and "--video-only" in err
    assert f"`ltx-wizard preprocess {run} --one-sample --simulate PRESET` again" in err
    assert read_state(run).silent == ("videos/clip_00.pt",)
    # going on as the trainer would: the next clip with sound is the one sample
    assert main(["preprocess", str(run), "--one-sample", "--simulate", "a6000"]) == 0
    one = run / "overfit" / ".precomputed" / "audio_latents" / "videos"
    assert [p.name for p in one.iterdir()] == ["clip_01.pt"]
