"""The in-process clip probe on real tiny videos made here with PyAV: what the trainer will see of
each clip (size as stored, rotation, frames by its rule, rate, sound), the ffprobe fallback, the
parallel reader with progress and cancel, and the facts cache."""

from __future__ import annotations

import os
import sys
import threading
from fractions import Fraction

import av
import numpy as np
import pytest

from ltx_wizard.core.dataset import clip_probe
from ltx_wizard.core.dataset.clip_cache import FILE_NAME, FactsCache
from ltx_wizard.core.dataset.clip_probe import ProbeCancelled, probe_clip, probe_clips
from ltx_wizard.core.dataset.media_probe import find_ffprobe, probe_with_ffprobe


def make_video(path, frames=33, width=96, height=64, *, audio=True, rotation=0, fmt="mp4", times_ms=None):
    """A real clip: H.264 frames (at `times_ms` when given: a variable rate), AAC silence."""
    with av.open(str(path), "w", format=fmt) as out:
        video = out.add_stream("libx264", rate=25)
        video.width, video.height, video.pix_fmt = width, height, "yuv420p"
        if rotation:
            video.set_display_rotation(rotation)
        if times_ms is not None:
            video.codec_context.time_base = Fraction(1, 1000)
        sound = out.add_stream("aac", rate=16000, layout="mono") if audio else None
        picture = np.full((height, width, 3), 80, np.uint8)
        for i in range(frames):
            frame = av.VideoFrame.from_ndarray(picture, format="rgb24")
            frame.pts = i if times_ms is None else times_ms[i]
            if times_ms is not None:
                frame.time_base = Fraction(1, 1000)
            out.mux(video.encode(frame))
        out.mux(video.encode(None))
        if sound is not None:
            chunk = av.AudioFrame.from_ndarray(
                np.zeros((1, 16000 * frames // 25), np.float32), format="fltp", layout="mono"
            )
            chunk.sample_rate, chunk.pts = 16000, 0
            out.mux(sound.encode(chunk))
            out.mux(sound.encode(None))
    return path


def make_png(path, width=120, height=200):
    with av.open(str(path), "w", format="image2") as out:
        still = out.add_stream("png", rate=1)
        still.width, still.height, still.pix_fmt = width, height, "rgb24"
        out.mux(
            still.encode(av.VideoFrame.from_ndarray(np.zeros((height, width, 3), np.uint8), format="rgb24"))
        )
        out.mux(still.encode(None))
    return path


def first_frame_rotation(path) -> int:
    """The display-matrix side data as the decoder hands it over with a frame."""
    with av.open(str(path)) as container:
        frame = next(container.decode(video=0))
        return int(frame.rotation) % 360


def test_a_clip_reads_as_the_trainer_counts_it(tmp_path, ffprobe_mode):
    facts = probe_clip(make_video(tmp_path / "a.mp4", frames=33, width=96, height=64))
    assert facts.error is None and facts.readable and facts.via == "pyav"
    assert (facts.kind, facts.width, facts.height, facts.rotation) == ("video", 96, 64, 0)
    assert (facts.frames, facts.frames_from, facts.fps, facts.variable_fps) == (33, "container", 25.0, False)
    assert facts.duration_s == pytest.approx(33 / 25, abs=0.05)
    assert facts.has_audio and facts.audio_codec == "aac"


def test_a_silent_clip_has_no_audio(tmp_path):
    facts = probe_clip(make_video(tmp_path / "quiet.mp4", audio=False))
    assert not facts.has_audio and facts.audio_codec is None and facts.frames == 33


@pytest.mark.parametrize("rotation", [90, 180, 270])
def test_rotation_is_the_display_matrix_and_the_size_stays_as_stored(tmp_path, rotation, ffprobe_mode):
    path = make_video(tmp_path / "phone.mp4", width=128, height=64, rotation=rotation)
    facts = probe_clip(path)
    assert facts.rotation == rotation == first_frame_rotation(path)
    assert (facts.width, facts.height) == (128, 64)  # what the trainer's decode gives
    if ffprobe_mode == "on PATH":
        assert probe_with_ffprobe(path, find_ffprobe()).rotation == rotation


def test_rotation_of_another_container_comes_from_its_first_frame(tmp_path):
    path = make_video(tmp_path / "a.mkv", fmt="matroska")
    facts = probe_clip(path)
    assert facts.rotation == first_frame_rotation(path) == 0 and facts.frames == 33


def test_an_image_is_one_frame_at_its_size(tmp_path):
    facts = probe_clip(make_png(tmp_path / "still.png", 120, 200))
    assert (facts.kind, facts.frames, facts.frames_from) == ("image", 1, "image")
    assert (facts.width, facts.height, facts.has_audio) == (120, 200, False)


def test_a_container_without_a_frame_count_is_counted_and_its_variable_rate_seen(tmp_path):
    steady = probe_clip(make_video(tmp_path / "cfr.mkv", frames=30, fmt="matroska"))
    assert (steady.frames, steady.frames_from, steady.variable_fps) == (30, "counted", False)
    times = [i * 40 for i in range(15)] + [600 + i * 100 for i in range(15)]
    varying = probe_clip(make_video(tmp_path / "vfr.mkv", frames=30, fmt="matroska", times_ms=times))
    assert (varying.frames, varying.frames_from, varying.variable_fps) == (30, "counted", True)


def test_a_variable_rate_mp4_is_seen_from_its_rates(tmp_path):
    times = [i * 40 for i in range(15)] + [600 + i * 100 for i in range(15)]
    facts = probe_clip(make_video(tmp_path / "vfr.mp4", frames=30, times_ms=times))
    assert facts.variable_fps and facts.frames == 30
    assert not probe_clip(make_video(tmp_path / "cfr.mp4", frames=30)).variable_fps


def test_unreadable_files_say_why_in_one_line_and_never_block(tmp_path):
    (tmp_path / "junk.mp4").write_bytes(b"not a video at all" * 50)
    os.mkfifo(tmp_path / "pipe.mp4")
    (tmp_path / "folder.mp4").mkdir()
    answers = {}
    worker = threading.Thread(
        target=lambda: answers.update(
            {n: probe_clip(tmp_path / n) for n in ("junk.mp4", "pipe.mp4", "folder.mp4", "gone.mp4")}
        )
    )
    worker.start()
    worker.join(timeout=30)
    assert not worker.is_alive(), "a FIFO blocked the probe"
    assert "Invalid data" in answers["junk.mp4"].error
    assert answers["pipe.mp4"].error == answers["folder.mp4"].error == "not a regular file"
    assert answers["gone.mp4"].error == "No such file or directory"
    assert all("\n" not in f.error and not f.readable for f in answers.values())


def test_without_pyav_ffprobe_reads_it_or_nothing_is_claimed(tmp_path, monkeypatch, ffprobe_mode):
    path = make_video(tmp_path / "rot.mp4", rotation=90)
    with_av = probe_clip(path)
    monkeypatch.setitem(sys.modules, "av", None)  # `import av` raises ImportError
    facts = probe_clip(path)
    if ffprobe_mode == "on PATH":
        assert facts.via == "ffprobe" and facts.readable
        same = ("width", "height", "rotation", "frames", "fps", "has_audio", "audio_codec")
        assert {k: getattr(facts, k) for k in same} == {k: getattr(with_av, k) for k in same}
    else:
        assert facts.via == "none" and not facts.readable
        assert facts.error == ("not read: PyAV (the av package) is not installed and ffprobe is not on PATH")


def _clips(folder, n):
    folder.mkdir()
    first = make_video(folder / "c000.mp4", frames=9)
    paths = [first]
    for i in range(1, n):
        (folder / f"c{i:03d}.mp4").write_bytes(first.read_bytes())
        paths.append(folder / f"c{i:03d}.mp4")
    return paths


def test_many_clips_read_in_parallel_in_order_with_progress(tmp_path):
    paths = _clips(tmp_path / "v", 40)
    (paths[7]).write_bytes(b"broken")
    asked = paths + [paths[3]]  # a clip named twice is read once
    seen = []
    facts = probe_clips(asked, workers=4, cache=False, on_progress=lambda d, t: seen.append((d, t)))
    assert [f.path for f in facts] == asked
    assert facts[7].error and all(f.frames == 9 for i, f in enumerate(facts) if i != 7)
    assert seen[-1] == (40, 40) and [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert probe_clips(asked, workers=1, cache=False) == facts


def test_a_cancel_stops_the_reading(tmp_path):
    paths = _clips(tmp_path / "v", 60)
    stop = threading.Event()
    stop.set()
    with pytest.raises(ProbeCancelled):
        probe_clips(paths, workers=4, cache=False, cancelled=stop)
    read = []
    later = threading.Event()

    def progress(done, total):
        read.append(done)
        later.set()

    with pytest.raises(ProbeCancelled):
        probe_clips(paths, workers=2, cache=False, cancelled=later, on_progress=progress)
    assert read and read[-1] < 60


def test_the_cache_reads_a_clip_again_only_once_it_changed(tmp_path, monkeypatch):
    paths = _clips(tmp_path / "v", 5)
    calls = []
    real = clip_probe.probe_clip
    monkeypatch.setattr(clip_probe, "probe_clip", lambda p: calls.append(p) or real(p))
    cache = FactsCache(tmp_path / "cache")
    first = probe_clips(paths, cache=cache)
    assert len(calls) == 5
    assert probe_clips(paths, cache=cache) == first and len(calls) == 5
    st = os.stat(paths[2])
    os.utime(paths[2], ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    probe_clips(paths, cache=cache)
    assert calls[5:] == [paths[2]]
    # another process: the facts come from the file; a torn line is only skipped
    with open(tmp_path / "cache" / FILE_NAME, "a", encoding="utf-8") as f:
        f.write('{"path": "/x", "key": [1,\n')
    again = probe_clips(paths, cache=FactsCache(tmp_path / "cache"))
    assert again == first[:2] + [probe_clip(paths[2])] + first[3:] and len(calls) == 6


def test_a_link_and_its_target_share_the_facts(tmp_path, monkeypatch):
    paths = _clips(tmp_path / "v", 1)
    (tmp_path / "link.mp4").symlink_to(paths[0])
    cache = FactsCache(None)
    probe_clips(paths, cache=cache)
    monkeypatch.setattr(clip_probe, "probe_clip", lambda p: pytest.fail(f"{p} read again"))
    (facts,) = probe_clips([tmp_path / "link.mp4"], cache=cache)
    assert facts.path == tmp_path / "link.mp4" and facts.frames == 9
