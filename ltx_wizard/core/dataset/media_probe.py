"""The clip probe's fallback: a clip's facts read with ffprobe, when PyAV is missing or cannot
open the file (core/dataset/clip_probe.py reads every clip with PyAV first).

Frames are counted by the trainer's rule (ltx_trainer/video_utils.py get_video_frame_count): the
stream's frame count, else duration x frame rate rounded, else every frame (ffprobe's packet
count here). One ffprobe process per clip costs ~140 ms of CPU, almost all of it start-up.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path
from typing import Any, Mapping

from ltx_wizard.core.dataset.clip_facts import IMAGE_SUFFIXES, ClipFacts, image_facts, unread

PROBE_TIMEOUT_S = 20.0
ENTRIES = (
    "stream=codec_type,codec_name,width,height,nb_frames,avg_frame_rate,r_frame_rate,"
    "duration:stream_side_data=rotation:format=duration"
)


def find_ffprobe(env: Mapping[str, str] | None = None) -> str | None:
    env = os.environ if env is None else env
    return shutil.which("ffprobe", path=env.get("PATH"))


def _run(argv: list[str]) -> tuple[dict[str, Any] | None, str | None]:
    """(ffprobe's JSON, None) or (None, why it failed in one line)."""
    try:
        done = subprocess.run(
            argv, capture_output=True, timeout=PROBE_TIMEOUT_S, check=False, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"ffprobe failed: {type(exc).__name__}"
    if done.returncode != 0:
        text = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return None, (text[-1] if text else f"ffprobe exit {done.returncode}")[:200]
    try:
        data = json.loads(done.stdout or b"{}")
    except ValueError:
        return None, "ffprobe printed no JSON"
    return (data, None) if isinstance(data, dict) else (None, "ffprobe printed no JSON")


def probe_with_ffprobe(path: Path, ffprobe: str) -> ClipFacts:
    """One clip; never raises: an unreadable clip comes back with `error` set."""
    path = Path(path)
    data, error = _run([ffprobe, "-v", "error", "-show_entries", ENTRIES, "-of", "json", str(path)])
    if data is None:
        return unread(path, error or "ffprobe failed", via="ffprobe")
    streams = [s for s in data.get("streams") or [] if isinstance(s, dict)]
    video = next((s for s in streams if s.get("codec_type") == "video"), None)
    audio = next((s for s in streams if s.get("codec_type") == "audio"), None)
    if video is None:
        return unread(path, "no video stream", via="ffprobe")
    width, height = _int(video.get("width")), _int(video.get("height"))
    if path.suffix.lower() in IMAGE_SUFFIXES:
        if not width or not height:  # ffprobe names a stream for any bytes called .jpg
            return unread(path, "no picture in it ffprobe can size", via="ffprobe")
        return image_facts(path, width, height, via="ffprobe")
    average, base = _fraction(video.get("avg_frame_rate")), _fraction(video.get("r_frame_rate"))
    frames, frames_from = _frames(video, average or base)
    if frames is None:
        frames, frames_from = _counted(path, ffprobe), "counted"
    duration = _fraction(video.get("duration")) or _fraction((data.get("format") or {}).get("duration"))
    return ClipFacts(
        path=path,
        kind="video",
        width=width,
        height=height,
        rotation=_rotation(video),
        frames=frames,
        fps=float(average or base or 24),
        variable_fps=bool(average and base and abs(average - base) > base / 100),
        duration_s=float(duration) if duration else None,
        has_audio=audio is not None,
        audio_codec=str(audio.get("codec_name")) if audio and audio.get("codec_name") else None,
        error=None,
        frames_from=frames_from if frames is not None else None,
        via="ffprobe",
    )


def _frames(stream: dict[str, Any], rate: Fraction | None) -> tuple[int | None, str | None]:
    # mirrors ltx_trainer/video_utils.py get_video_frame_count (its first two ways)
    count = _int(stream.get("nb_frames"))
    if count:
        return count, "container"
    duration = _fraction(stream.get("duration"))
    if rate and duration:
        return round(duration * rate), "estimate"
    return None, None


def _counted(path: Path, ffprobe: str) -> int | None:
    data, _ = _run(
        [
            ffprobe,
            "-v",
            "error",
            "-count_packets",
            "-select_streams",
            "v:0",
            "-show_entries",
            "stream=nb_read_packets",
            "-of",
            "json",
            str(path),
        ]
    )
    streams = (data or {}).get("streams") or [{}]
    return _int(streams[0].get("nb_read_packets")) if isinstance(streams[0], dict) else None


def _rotation(stream: dict[str, Any]) -> int:
    for side in stream.get("side_data_list") or []:
        degrees = _int(side.get("rotation")) if isinstance(side, dict) else None
        if degrees is not None:
            return int(round(degrees / 90.0)) * 90 % 360
    return 0


def _int(value: object) -> int | None:
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return None


def _fraction(value: object) -> Fraction | None:
    try:
        out = Fraction(str(value))
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    return out if out > 0 else None
