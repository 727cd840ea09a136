"""A dataset file as input: columns for the recipe, media files, clip frames/size/sound vs buckets."""

from __future__ import annotations

import json

import pytest

from ltx_wizard.core.dataset.buckets import frame_cap, parse_buckets
from ltx_wizard.core.dataset.sources import SHIPPED_T2V_STRATEGY, video_only
from ltx_wizard.core.dataset.checks import check_dataset
from ltx_wizard.core.dataset.rows import read_dataset_file
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.dataset.media_probe import find_ffprobe, probe_media
from ltx_wizard.demo.lookalike_media import make_clip_dataset, write_clip, write_fake_ffprobe

V2V = {"name": "flexible", "video": {"is_generated": True, "latents_dir": "latents",
       "conditions": [{"type": "reference", "latents_dir": "reference_latents"}]}}
VIDEO_ONLY = video_only(SHIPPED_T2V_STRATEGY)


@pytest.fixture
def ffprobe(tmp_path):
    return str(write_fake_ffprobe(tmp_path / "bin"))


def _check(path, strategy=SHIPPED_T2V_STRATEGY, buckets="960x544x49", ffprobe=None):
    return check_dataset(read_dataset_file(path), strategy, parse_buckets(buckets), ffprobe=ffprobe)


@pytest.mark.parametrize("fmt", ["json", "jsonl", "csv"])
def test_every_format_reads_to_the_same_samples(tmp_path, fmt, ffprobe):
    path = make_clip_dataset(tmp_path / "d", 3, fmt=fmt)
    report = _check(path, ffprobe=ffprobe)
    assert report.kept == ("videos/clip_00.pt", "videos/clip_01.pt", "videos/clip_02.pt")
    assert report.shortest == ("videos/clip_00.mp4", 97) and report.frame_cap == 97


def test_short_clip_is_listed_with_the_cap_and_kept_clips_counted(tmp_path, ffprobe):
    path = make_clip_dataset(tmp_path / "d", [{"frames": 120}, {"frames": 40}, {"frames": 97}])
    report = _check(path, buckets="960x544x49", ffprobe=ffprobe)
    assert report.dropped == (("videos/clip_01.mp4", "40 frames, fewer than the bucket's 49"),)
    assert len(report.kept) == 2
    assert report.shortest == ("videos/clip_01.mp4", 40) and report.frame_cap == 33
    assert "drops 1 clip" in report.warnings[0]


def test_every_clip_too_short_names_the_bucket_that_keeps_them(tmp_path, ffprobe):
    path = make_clip_dataset(tmp_path / "d", [{"frames": 30}, {"frames": 45}])
    with pytest.raises(UsageError) as err:
        _check(path, buckets="960x544x49", ffprobe=ffprobe)
    assert str(path) in err.value.message
    assert "--resolution-buckets 960x544x25" in err.value.message


def test_silent_clips_are_named_under_an_audio_recipe_only(tmp_path, ffprobe):
    path = make_clip_dataset(tmp_path / "d", [{}, {"audio": False}])
    report = _check(path, ffprobe=ffprobe)
    assert report.silent == ("videos/clip_01.mp4",)
    assert any("clip_01.mp4" in w and "no audio stream" in w for w in report.warnings)
    assert _check(path, strategy=VIDEO_ONLY, ffprobe=ffprobe).silent == ()


def test_all_silent_under_audio_recipe_offers_video_only(tmp_path, ffprobe):
    path = make_clip_dataset(tmp_path / "d", [{"audio": False}, {"audio": False}])
    with pytest.raises(UsageError, match="--video-only"):
        _check(path, ffprobe=ffprobe)


def test_missing_media_file_names_file_entry_and_fix(tmp_path):
    path = make_clip_dataset(tmp_path / "d", 2)
    (tmp_path / "d" / "videos" / "clip_01.mp4").unlink()
    with pytest.raises(UsageError) as err:
        _check(path)
    assert "clip_01.mp4" in err.value.message and "entry 2" in err.value.message


def test_recipe_column_missing(tmp_path):
    path = make_clip_dataset(tmp_path / "d", 1)
    with pytest.raises(UsageError, match="no reference_video column"):
        _check(path, strategy=V2V)


def test_no_caption_column(tmp_path):
    write_clip(tmp_path / "a.mp4")
    path = tmp_path / "dataset.json"
    path.write_text(json.dumps([{"video": "a.mp4"}]))
    with pytest.raises(UsageError, match="no caption column"):
        _check(path)


def test_legacy_media_path_column_is_the_video(tmp_path, ffprobe):
    write_clip(tmp_path / "a.mp4")
    path = tmp_path / "dataset.jsonl"
    path.write_text(json.dumps({"caption": "c", "media_path": "a.mp4"}) + "\n")
    assert _check(path, ffprobe=ffprobe).kept == ("a.pt",)


def test_unreadable_clip_is_dropped_as_the_trainer_drops_it(tmp_path, ffprobe):
    path = make_clip_dataset(tmp_path / "d", 2)
    (tmp_path / "d" / "videos" / "clip_00.mp4").write_bytes(b"not a video")
    report = _check(path, ffprobe=ffprobe)
    assert report.dropped[0][0] == "videos/clip_00.mp4" and "unreadable" in report.dropped[0][1]


def test_without_ffprobe_says_what_was_not_checked(tmp_path):
    path = make_clip_dataset(tmp_path / "d", [{"frames": 5}])
    report = _check(path, ffprobe=None)
    assert len(report.kept) == 1
    assert "ffprobe is not installed" in report.not_checked
    assert "not checked" in report.describe()


@pytest.mark.parametrize("text,fragment", [("960x540x49", "multiples of 32"),
                                           ("960x544x48", "multiple of 8 plus 1"),
                                           ("960x544", "is not WxHxF")])
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


def test_probe_counts_frames_like_the_trainer(tmp_path, ffprobe):
    info = probe_media(write_clip(tmp_path / "c.mp4", frames=61, width=640, height=360,
                                  audio=False), ffprobe)
    assert (info.frames, info.width, info.height, info.has_audio) == (61, 640, 360, False)
    assert probe_media(tmp_path / "still.png", ffprobe).frames == 1


def test_ffprobe_found_on_path_or_named(tmp_path, ffprobe):
    assert find_ffprobe({"PATH": str(tmp_path / "bin")}) == ffprobe
    assert find_ffprobe({"PATH": str(tmp_path / "empty")}) is None
    assert find_ffprobe({"LTX_WIZARD_FFPROBE": "/x/ffprobe", "PATH": ""}) == "/x/ffprobe"
