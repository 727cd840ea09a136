"""The simulated preprocessor (`--simulate`: simulated GPUs only) reads the user's real clips, as
the trainer's process_dataset.py does: frames, size and sound decide what it keeps, which bucket
each clip gets and every latent's shape."""

from __future__ import annotations

import json

import pytest

from ltx_wizard.core.dataset.pt_shapes import read_pt
from ltx_wizard.demo.lookalike_checkout import make_checkout
from ltx_wizard.demo.lookalike_media import write_clip, write_image
from ltx_wizard.demo.sim.preprocess import main as sim_main

SCRIPT = "packages/ltx-trainer/scripts/process_dataset.py"


@pytest.fixture
def run_sim(tmp_path, monkeypatch, capsys):
    make_checkout(tmp_path / "LTX-2")
    monkeypatch.setenv("LTX_WIZARD_SIM_SCRIPT", str(tmp_path / "LTX-2" / SCRIPT))
    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "0")

    def run(rows, buckets, *extra):
        dataset = tmp_path / "d" / "dataset.json"
        dataset.write_text(json.dumps(rows))
        code = sim_main(
            [
                str(dataset),
                "--model-path",
                "m",
                "--text-encoder-path",
                "g",
                "--resolution-buckets",
                buckets,
                *extra,
            ]
        )
        out, err = capsys.readouterr()
        return code, out + err, dataset.parent / ".precomputed"

    return run


def _size(path):
    obj = read_pt(path)
    return (obj.get("latents") or obj.get("mask")).size


def test_real_clips_are_kept_bucketed_and_encoded_as_the_trainer_does(tmp_path, run_sim):
    d = tmp_path / "d"
    write_clip(d / "wide.mp4", frames=60, width=1280, height=720)
    write_clip(d / "tall.mp4", frames=60, width=720, height=1280, audio=False)
    write_clip(d / "short.mp4", frames=20, width=1280, height=720)
    (d / "broken.mp4").write_bytes(b"not a video")
    rows = [{"caption": n, "video": f"{n}.mp4"} for n in ("wide", "tall", "short", "broken")]
    code, log, out = run_sim(rows, "960x544x49;544x960x49")
    assert code == 0, log
    assert "Skipping video at" in log and "short.mp4 - has 20 frames" in log
    assert f"Failed to read video at {d / 'broken.mp4'}: " in log and "Invalid data" in log
    assert "Audio processing: 1 videos with audio, 1 videos without audio (skipped)" in log
    assert sorted(p.name for p in (out / "latents").iterdir()) == ["tall.pt", "wide.pt"]
    # each clip in the bucket nearest its aspect ratio: 7 latent frames, 544/32 x 960/32
    assert _size(out / "latents" / "wide.pt") == (128, 7, 17, 30)
    assert _size(out / "latents" / "tall.pt") == (128, 7, 30, 17)
    assert [p.name for p in (out / "audio_latents").iterdir()] == ["wide.pt"]
    assert read_pt(out / "latents" / "wide.pt")["fps"] == 25.0


def test_a_still_without_a_one_frame_bucket_stops_it_as_the_trainer_stops(tmp_path, run_sim):
    write_image(tmp_path / "d" / "still.png", 960, 544)
    rows = [{"caption": "s", "video": "still.png"}]
    code, log, _ = run_sim(rows, "960x544x49")
    assert code == 1 and "No resolution buckets have <= 1 frames" in log
    code, log, out = run_sim(rows, "960x544x1;960x544x49", "--skip-audio")
    assert code == 0, log
    assert _size(out / "latents" / "still.pt") == (128, 1, 17, 30)


def test_references_and_masks_get_the_shapes_the_trainer_writes(tmp_path, run_sim):
    d = tmp_path / "d"
    write_clip(d / "target.mp4", frames=49, width=1024, height=576)
    write_clip(d / "ref.mp4", frames=49, width=1024, height=576, audio=False)
    write_clip(d / "mask.mp4", frames=49, width=1024, height=576, audio=False)
    rows = [{"caption": "c", "video": "target.mp4", "reference_video": "ref.mp4", "video_mask": "mask.mp4"}]
    code, log, out = run_sim(rows, "1024x576x49", "--reference-downscale-factor", "2")
    assert code == 0, log
    assert _size(out / "reference_latents" / "target.pt") == (128, 7, 9, 16)
    assert _size(out / "video_masks" / "target.pt") == (7, 18, 32)
    # 544 / 2 = 272 is no multiple of 32: refused as compute_scaled_resolution_buckets refuses
    code, log, _ = run_sim(rows, "960x544x49", "--reference-downscale-factor", "2")
    assert code == 1 and "Scaled height 272 (from 544 / 2) is not divisible by 32" in log
