"""The audio gate, decided once before any preprocessing, on real tiny clips with and without sound.

A trainer environment that cannot decode sound (torchaudio without torchcodec) once led to a dead
launch: each one-sample try recorded the next clip with sound as silent, until every clip was
"silent", the preprocessing said "done, verified" and launch.sh died with "No valid samples found".
Now the first step stops before encoding anything, with the fix; or, with the user's consent, the
run trains video only, and that run launches and trains to the end.
"""

from __future__ import annotations

import shlex
import subprocess

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.dataset.sources import audio_folder
from ltx_wizard.core.io.yaml_patch import get_dotted, load_yaml
from ltx_wizard.core.launch import accelerate_config
from ltx_wizard.core.preprocess.preprocess_state import read_state
from ltx_wizard.demo.lookalike_checkout import make_checkout
from ltx_wizard.demo.lookalike_media import make_clip_dataset
from ltx_wizard.demo.lookalike_models import make_checkpoint, make_gemma_dir
from ltx_wizard.demo.sim.stand_in import AUDIO_DECODE_ENV

SIM = ["--simulate", "a6000"]
# seven clips with sound and one without, as the user had them
CLIPS = [{}, {}, {}, {"audio": False}, {}, {}, {}, {}]


@pytest.fixture
def planned(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(accelerate_config, "accelerate_available", lambda: False)
    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "0")
    make_checkout(tmp_path / "LTX-2")
    make_checkpoint(tmp_path / "models" / "ckpt.safetensors", params_b=22)
    make_gemma_dir(tmp_path / "models" / "gemma")
    dataset = make_clip_dataset(tmp_path / "cats", CLIPS)
    argv = ["plan", "--trainer-root", str(tmp_path / "LTX-2"), "--checkpoint"]
    argv += [
        str(tmp_path / "models" / "ckpt.safetensors"),
        "--text-encoder",
        str(tmp_path / "models" / "gemma"),
    ]
    argv += ["--dataset", str(dataset), "--workspace", str(tmp_path / "ws"), "--run-name", "run", *SIM]
    assert main(argv) == 0, capsys.readouterr().err
    capsys.readouterr()
    run = tmp_path / "ws" / "run"
    assert audio_folder(_strategy(run)) == "audio_latents"  # the recipe trains sound
    return run, dataset


def _strategy(run):
    return get_dotted(load_yaml((run / "config.yaml").read_text()), "training_strategy")


def _refused(run, capsys) -> str:
    assert main(["preprocess", str(run), "--one-sample", *SIM]) == 1
    return capsys.readouterr().err.strip().splitlines()[-1]


def test_no_audio_decoder_stops_before_any_clip_is_encoded_with_the_fix(planned, capsys, monkeypatch):
    run, dataset = planned
    monkeypatch.setenv(AUDIO_DECODE_ENV, "0")  # the trainer's environment has no torchcodec
    before = read_state(run)
    for _ in range(3):  # asked again and again: the same stop, nothing recorded, nothing encoded
        err = _refused(run, capsys)
        assert "cannot decode the clips' sound" in err and "TorchCodec is required" in err
        assert "`uv sync`" in err and "torchcodec" in err and "Nothing was encoded" in err
        assert read_state(run) == before  # no clip with sound recorded as silent
        assert not (run / "overfit" / ".precomputed").exists()
        assert not (run / "logs" / "preprocess-one-sample.log").exists()
        assert not (dataset.parent / ".precomputed").exists()
    assert read_state(run).silent == ("videos/clip_03.pt",)  # the one without sound, from the plan


def test_with_consent_the_run_trains_video_only_and_launches_to_the_end(planned, capsys, monkeypatch):
    run, dataset = planned
    monkeypatch.setenv(AUDIO_DECODE_ENV, "0")
    err = _refused(run, capsys)
    consent = err.split("or train video only (config.yaml's audio turned off): `")[1].rstrip("`")
    assert consent == shlex.join(["ltx-wizard", "preprocess", str(run), "--one-sample", "--video-only", *SIM])
    assert main(shlex.split(consent)[1:]) == 0  # the consent, run as printed
    capsys.readouterr()
    assert audio_folder(_strategy(run)) is None  # as the trainer reads it: video only
    assert get_dotted(load_yaml((run / "config.yaml").read_text()), "training_strategy.audio") is None
    state = read_state(run)
    assert state.video_only and state.spec.skip_audio and state.audio_gate.startswith("video only")
    assert not (run / "overfit" / ".precomputed" / "audio_latents").exists()
    assert "--skip-audio" in (run / "logs" / "preprocess-one-sample.log").read_text()
    assert main(["autotune", str(run), *SIM, "--json"]) == 0
    assert main(["preprocess", str(run), *SIM]) == 0
    assert "full preprocess: done, verified" in capsys.readouterr().out
    videos = dataset.parent / ".precomputed" / "latents" / "videos"
    assert len(list(videos.iterdir())) == 8  # every clip trains, the silent one too
    done = subprocess.run(["bash", str(run / "launch.sh")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    assert "No valid samples" not in (run / "logs" / "train.log").read_text()
    assert main(["status", str(run)]) == 0
    assert "Training: finished" in capsys.readouterr().out


def test_a_decoding_environment_passes_the_gate_once_and_trains_with_sound(planned, capsys):
    run, _ = planned
    assert main(["preprocess", str(run), "--one-sample", *SIM]) == 0
    state = read_state(run)
    assert state.audio_gate.startswith(
        "decodes audio (torchaudio 2.9.0, torchcodec 0.8.0; checked on clip_00.mp4"
    )
    assert not state.video_only and state.silent == ("videos/clip_03.pt",)
    audio = run / "overfit" / ".precomputed" / "audio_latents" / "videos"
    assert [p.name for p in audio.iterdir()] == ["clip_00.pt"]
