"""Frame count, size and audio stream of a clip, read with ffprobe (when it is installed).

Frames are counted as the trainer counts them (ltx_trainer/video_utils.py get_video_frame_count):
the stream's frame count when the container has one, else duration x frame rate, rounded. The
trainer's last resort, a full decode, is not done here: such a clip is reported as not counted.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

from ltx_wizard.core.base.records import record

FFPROBE_ENV = "LTX_WIZARD_FFPROBE"  # an ffprobe to use instead of the one on PATH (the demo's)
PROBE_TIMEOUT_S = 20.0
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")  # mirrors process_videos.py: a still is one frame


@record
class MediaInfo:
    frames: int | None = None  # None: not counted
    width: int | None = None
    height: int | None = None
    has_audio: bool = False
    has_video: bool = False
    error: str | None = None  # ffprobe could not read it: the trainer cannot either


def find_ffprobe(env: dict[str, str] | None = None) -> str | None:
    env = dict(os.environ) if env is None else env
    given = env.get(FFPROBE_ENV)
    if given:
        return given
    return shutil.which("ffprobe", path=env.get("PATH"))


def probe_media(path: Path, ffprobe: str) -> MediaInfo:
    """One clip; never raises: an unreadable clip comes back with `error` set."""
    if path.suffix.lower() in IMAGE_SUFFIXES:
        return MediaInfo(frames=1, has_video=True)
    argv = [ffprobe, "-v", "error", "-show_entries",
            "stream=codec_type,width,height,nb_frames,avg_frame_rate,r_frame_rate,duration",
            "-of", "json", str(path)]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=PROBE_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return MediaInfo(error=f"ffprobe failed: {type(exc).__name__}")
    if done.returncode != 0:
        text = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return MediaInfo(error=(text[-1] if text else f"ffprobe exit {done.returncode}")[:200])
    try:
        streams = json.loads(done.stdout or b"{}").get("streams") or []
    except (ValueError, AttributeError):
        return MediaInfo(error="ffprobe printed no JSON")
    return _from_streams([s for s in streams if isinstance(s, dict)])


def _from_streams(streams: list[dict]) -> MediaInfo:
    video = next((s for s in streams if s.get("codec_type") == "video"), None)
    audio = any(s.get("codec_type") == "audio" for s in streams)
    if video is None:
        return MediaInfo(has_audio=audio, error="no video stream")
    return MediaInfo(frames=_frames(video), width=_int(video.get("width")),
                     height=_int(video.get("height")), has_audio=audio, has_video=True)


def _frames(stream: dict) -> int | None:
    # mirrors ltx_trainer/video_utils.py get_video_frame_count (its first two ways)
    count = _int(stream.get("nb_frames"))
    if count:
        return count
    rate = _fraction(stream.get("avg_frame_rate")) or _fraction(stream.get("r_frame_rate"))
    duration = _fraction(stream.get("duration"))
    if rate and duration:
        return round(duration * rate)
    return None


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
