"""A dataset file as input: columns for the recipe, media files, and each clip as the trainer's
preprocessing will take it, counted once (DatasetFacts). Every clip is a real tiny video; the
tests that read clips run with ffprobe on PATH and with it hidden."""

from __future__ import annotations

import json
import shutil
import sys

import pytest

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.dataset import checks, clip_probe
from ltx_wizard.core.dataset.buckets import frame_cap, parse_buckets
from ltx_wizard.core.dataset.checks import check_dataset, check_dataset_file
from ltx_wizard.core.dataset.clip_probe import ProbeCancelled
from ltx_wizard.core.dataset.rows import read_dataset_file
from ltx_wizard.core.dataset.sources import SHIPPED_T2V_STRATEGY, video_only
from ltx_wizard.demo.lookalike_media import make_clip_dataset, write_clip, write_image

V2V = {
    "name": "flexible",
    "video": {
        "is_generated": True,
        "latents_dir": "latents",
        "conditions": [{"type": "reference", "latents_dir": "reference_latents"}],
    },
}
VIDEO_ONLY = video_only(SHIPPED_T2V_STRATEGY)
SMALL = {"width": 960, "height": 544}  # the default bucket's size: no crop to name


def _check(path, strategy=SHIPPED_T2V_STRATEGY, buckets="960x544x49"):
    return check_dataset(read_dataset_file(path), strategy, parse_buckets(buckets))


def _clips(*changes):
    return [{**SMALL, **c} for c in changes]


@pytest.mark.parametrize("fmt", ["json", "jsonl", "csv"])
def test_every_format_reads_to_the_same_samples(tmp_path, fmt, ffprobe_mode):
    path = make_clip_dataset(tmp_path / "d", _clips({}, {}, {}), fmt=fmt)
    facts = _check(path)
    assert facts.usable == facts.kept == ("videos/clip_00.pt", "videos/clip_01.pt", "videos/clip_02.pt")
    assert facts.shortest == ("videos/clip_00.mp4", 97) and facts.frame_cap == 97
    assert facts.describe().startswith("3 of 3 clips usable at 960x544x49") and facts.warnings == ()


def test_the_count_is_what_the_trainer_trains_on(tmp_path, ffprobe_mode):
    # the five clips: one too short for 49 frames, one silent under an audio recipe
    path = make_clip_dataset(tmp_path / "d", _clips({}, {"frames": 40}, {"audio": False}, {}, {}))
    facts = _check(path)
    assert facts.kept == ("videos/clip_00.pt", "videos/clip_02.pt", "videos/clip_03.pt", "videos/clip_04.pt")
    assert facts.usable == ("videos/clip_00.pt", "videos/clip_03.pt", "videos/clip_04.pt")
    assert facts.describe().startswith("3 of 5 clips usable at 960x544x49 (1 skipped, 1 without sound)")
    skipped, silent = facts.warnings
    assert skipped == (
        "the trainer skips 1 clip(s): videos/clip_01.mp4: 40 frames, fewer than "
        "the bucket's 49: the trainer skips it"
    )
    assert silent.startswith("1 clip(s) have no sound, and the recipe trains audio")
    assert "videos/clip_02.mp4: no audio stream: no audio latents, so the trainer leaves it out" in silent
    only_video = _check(path, strategy=VIDEO_ONLY)  # the silent one trains, without audio
    assert len(only_video.usable) == 4 and only_video.silent == ()


def test_short_clip_is_listed_with_the_cap(tmp_path):
    path = make_clip_dataset(tmp_path / "d", _clips({"frames": 120}, {"frames": 40}, {}))
    facts = _check(path)
    assert facts.dropped == (("videos/clip_01.mp4", "40 frames, fewer than the bucket's 49"),)
    assert facts.shortest == ("videos/clip_01.mp4", 40) and facts.frame_cap == 33


def test_every_clip_too_short_names_the_bucket_that_keeps_them(tmp_path, ffprobe_mode):
    path = make_clip_dataset(tmp_path / "d", _clips({"frames": 30}, {"frames": 45}))
    with pytest.raises(UsageError) as err:
        _check(path)
    assert str(path) in err.value.message
    assert "--resolution-buckets 960x544x25" in err.value.message


def test_all_silent_under_audio_recipe_offers_video_only(tmp_path):
    path = make_clip_dataset(tmp_path / "d", _clips({"audio": False}, {"audio": False}))
    with pytest.raises(UsageError, match="--video-only"):
        _check(path)


def test_a_portrait_clip_is_cropped_as_the_trainer_crops_it(tmp_path, ffprobe_mode):
    path = make_clip_dataset(
        tmp_path / "d",
        [{"width": 720, "height": 1280, "frames": 49}, {"width": 480, "height": 272, "frames": 49}],
    )
    facts = _check(path)
    # _resize_and_crop: scaled to the bucket's width (1280 * 960 / 720 = 1706 high), then 544 of
    # those rows kept, center-cropped
    kept_share = 544 / int(1280 * 960 / 720)
    crop = next(w for w in facts.warnings if "center crop" in w)
    assert (
        f"videos/clip_00.mp4: 720x1280 in a 960x544 bucket: scaled and center-cropped, "
        f"keeping {kept_share:.0%} of its height"
    ) in crop and f"{kept_share:.0%}" == "32%"
    upscale = next(w for w in facts.warnings if "upscaled" in w)
    assert "videos/clip_01.mp4: 480x272, smaller than the bucket: upscaled x2.00" in upscale
    assert not any("smaller than every bucket" in w for w in facts.warnings)
    assert len(facts.usable) == 2


def test_a_clip_stored_rotated_is_said_to_train_sideways(tmp_path):
    path = make_clip_dataset(tmp_path / "d", _clips({"rotation": 90}))
    (warning,) = _check(path).warnings
    assert (
        "videos/clip_00.mp4: meant to be shown rotated 90 degrees: the trainer decodes it as "
        "stored (960x544) and trains on it sideways"
    ) in warning


def test_an_image_needs_a_bucket_of_one_frame(tmp_path, ffprobe_mode):
    write_image(tmp_path / "still.png", 960, 544)
    write_clip(tmp_path / "a.mp4", **SMALL)
    path = tmp_path / "dataset.json"
    path.write_text(json.dumps([{"caption": "c", "video": "a.mp4"}, {"caption": "s", "video": "still.png"}]))
    with pytest.raises(UsageError) as err:
        _check(path, strategy=VIDEO_ONLY)
    assert "still.png: an image, and no bucket has 1 frame" in err.value.message
    assert "--resolution-buckets 960x544x1;960x544x49" in err.value.message
    facts = _check(path, strategy=VIDEO_ONLY, buckets="960x544x1;960x544x49")
    assert facts.usable == ("a.pt", "still.pt")


def test_missing_media_file_names_file_entry_and_fix(tmp_path):
    path = make_clip_dataset(tmp_path / "d", _clips({"frames": 49}, {"frames": 49}))
    (tmp_path / "d" / "videos" / "clip_01.mp4").unlink()
    with pytest.raises(UsageError) as err:
        _check(path)
    assert "clip_01.mp4" in err.value.message and "entry 2" in err.value.message


def test_recipe_column_missing(tmp_path):
    path = make_clip_dataset(tmp_path / "d", _clips({"frames": 49}))
    with pytest.raises(UsageError, match="no reference_video column"):
        _check(path, strategy=V2V)


def test_no_caption_column(tmp_path):
    write_clip(tmp_path / "a.mp4", frames=49, **SMALL)
    path = tmp_path / "dataset.json"
    path.write_text(json.dumps([{"video": "a.mp4"}]))
    with pytest.raises(UsageError, match="no caption column"):
        _check(path)


def test_legacy_media_path_column_is_the_video(tmp_path):
    write_clip(tmp_path / "a.mp4", frames=49, **SMALL)
    path = tmp_path / "dataset.jsonl"
    path.write_text(json.dumps({"caption": "c", "media_path": "a.mp4"}) + "\n")
    assert _check(path).kept == ("a.pt",)


def test_unreadable_clip_is_dropped_as_the_trainer_drops_it(tmp_path, ffprobe_mode):
    path = make_clip_dataset(tmp_path / "d", _clips({}, {}))
    (tmp_path / "d" / "videos" / "clip_00.mp4").write_bytes(b"not a video")
    facts = _check(path)
    clip, why = facts.dropped[0]
    assert clip == "videos/clip_00.mp4" and why.startswith("cannot be read (") and "Invalid data" in why
    assert facts.describe().startswith("1 of 2 clips usable")


def test_without_pyav_ffprobe_reads_them_or_the_line_says_nothing_was_read(
    tmp_path, monkeypatch, ffprobe_mode
):
    path = make_clip_dataset(tmp_path / "d", _clips({}, {"frames": 5}, {"audio": False}))
    monkeypatch.setitem(sys.modules, "av", None)  # PyAV missing
    facts = _check(path)
    if ffprobe_mode == "on PATH":
        assert facts.describe().startswith("1 of 3 clips usable") and len(facts.warnings) == 2
        return
    assert len(facts.kept) == 3 and facts.read == 0
    assert facts.describe() == (
        "3 clips listed for 960x544x49, none of them read: how many the trainer keeps is not known"
    )
    (warning,) = facts.warnings
    assert warning.startswith(
        "not checked: frames, sizes and sound of the 3 clips (not read: "
        "PyAV (the av package) is not installed and ffprobe is not on PATH"
    )


def test_past_the_read_limit_a_spread_sample_is_read_and_said(tmp_path, monkeypatch):
    monkeypatch.setattr(checks, "READ_ALL_MAX", 10)
    path = make_clip_dataset(tmp_path / "d", _clips({"frames": 49}))
    rows = json.loads(path.read_text())
    rows = (rows * 40)[:40]
    for i in (0, 20):  # two too short clips, both in the sample
        write_clip(tmp_path / "d" / f"short{i}.mp4", frames=9, **SMALL)
        rows[i] = {"caption": "short", "video": f"short{i}.mp4"}
    path.write_text(json.dumps(rows))
    facts = _check(path, strategy=VIDEO_ONLY)
    assert facts.sampled and facts.read == 10 and len(facts.dropped) == 2
    assert facts.describe().startswith(
        "about 32 of 40 clips usable at 960x544x49 (from 10 clips read, spread over the file)"
    )
    assert facts.warnings[0] == (
        "not checked: 30 of the 40 clips were not read (past 10 clips, 10 "
        "spread over the file are read and the rest counted as usable)"
    )


def test_a_check_reports_progress_can_be_cancelled_and_reads_nothing_twice(tmp_path, monkeypatch):
    path = make_clip_dataset(tmp_path / "d", _clips({"frames": 49}, {"frames": 49}))
    seen = []
    first = check_dataset_file(path, VIDEO_ONLY, None, on_progress=lambda *a: seen.append(a))
    assert ("looking at the media files", 0, 2) in seen and seen[-1] == ("reading clips", 2, 2)
    monkeypatch.setattr(clip_probe, "probe_clip", lambda p: pytest.fail(f"{p} read again"))
    assert check_dataset_file(path, VIDEO_ONLY, None) == first  # another field edited
    with pytest.raises(ProbeCancelled):
        check_dataset_file(path, VIDEO_ONLY, None, cancelled=lambda: True)


@pytest.mark.parametrize(
    "text,fragment",
    [("960x540x49", "multiples of 32"), ("960x544x48", "multiple of 8 plus 1"), ("960x544", "is not WxHxF")],
)
def test_bucket_rules(text, fragment):
    with pytest.raises(UsageError, match=fragment):
        parse_buckets(text)


def test_frame_cap():
    assert [frame_cap(n) for n in (1, 8, 9, 48, 49, 120)] == [1, 1, 9, 41, 49, 113]


def test_bad_json_and_wrong_suffix_are_one_line(tmp_path):
    bad = tmp_path / "dataset.json"
    bad.write_text("{not json")
    with pytest.raises(UsageError, match="not valid JSON"):
        read_dataset_file(bad)
    upper = tmp_path / "dataset.JSON"
    upper.write_text("[]")
    with pytest.raises(UsageError, match="lower"):
        read_dataset_file(upper)


def test_output_names_are_the_trainers_for_every_kind_of_path(tmp_path):
    from ltx_wizard.core.dataset.checks import _output_names

    values = [
        "videos/a.mp4",
        " b.MOV ",
        "c",
        ".hidden",
        "d.",
        "e.tar.gz",
        "f/g/h.mp4",
        "./i.mp4",
        "j//k.mp4",
        "../l.mp4",
        "/abs/m.mp4",
        "n\\o.mp4",
        "p/./q.mp4",
        "r/",
        "s..mp4",
    ]
    path = tmp_path / "dataset.json"
    path.write_text(json.dumps([{"caption": "c", "video": v} for v in values]))
    ds = read_dataset_file(path)
    assert _output_names(ds) == [ds.output_rel(r) for r in ds.rows]


def test_an_unreadable_image_stops_the_preprocessing_as_it_stops_the_trainer(tmp_path):
    write_clip(tmp_path / "a.mp4", frames=49, **SMALL)
    (tmp_path / "still.jpg").write_bytes(b"not an image")
    path = tmp_path / "dataset.json"
    path.write_text(json.dumps([{"caption": "c", "video": "a.mp4"}, {"caption": "s", "video": "still.jpg"}]))
    with pytest.raises(UsageError) as err:
        _check(path, strategy=VIDEO_ONLY, buckets="960x544x1;960x544x49")
    assert "still.jpg: cannot be read as an image" in err.value.message
    assert "replace or take out that file" in err.value.message


def test_without_pyav_ffprobe_refuses_an_unreadable_image_too(tmp_path, monkeypatch):
    if shutil.which("ffprobe") is None:
        pytest.skip("ffprobe is not installed here")
    monkeypatch.setitem(sys.modules, "av", None)
    (tmp_path / "still.png").write_bytes(b"not an image")
    path = tmp_path / "dataset.json"
    path.write_text(json.dumps([{"caption": "s", "video": "still.png"}]))
    with pytest.raises(UsageError, match="still.png: cannot be read as an image"):
        _check(path, strategy=VIDEO_ONLY, buckets="960x544x1")
