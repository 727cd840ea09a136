"""Look-alike clips and dataset files: real, tiny videos (H.264 in MP4, AAC sound) made with PyAV.

Any reader takes them as it takes a user's clips (PyAV, a real ffprobe, the wizard's clip probe),
so the demo and the tests walk the same path real media does. They stay tiny: one flat grey
frame repeated (a few KB for 97 frames at 1280x720, ~0.1 s to encode), silence for sound.
"""

from __future__ import annotations

import json
import os
from fractions import Fraction
from pathlib import Path
from typing import Any

AUDIO_RATE = 16_000


def _tmp(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def write_clip(
    path: Path,
    frames: int = 97,
    width: int = 1280,
    height: int = 720,
    *,
    audio: bool = True,
    fps: int = 25,
    rotation: int = 0,
) -> Path:
    """A real MP4 of `frames` frames at width x height (as stored; `rotation` sets the display
    matrix a phone writes for a clip shot upright), with a silent AAC track when `audio`; encoded
    once per set of arguments (demo/media_cache.py)."""
    from ltx_wizard.demo.media_cache import cached

    path = Path(path)
    if _same_clip(path, frames, width, height, audio, fps, rotation):
        return path  # a rebuild keeps the file (and its cached facts)
    path.parent.mkdir(parents=True, exist_ok=True)
    parts = ("clip", frames, width, height, audio, fps, rotation)
    return cached(
        path, parts, lambda target: _encode_clip(target, frames, width, height, audio, fps, rotation)
    )


def _encode_clip(
    path: Path, frames: int, width: int, height: int, audio: bool, fps: int, rotation: int
) -> Path:
    import av

    tmp = _tmp(path)
    with av.open(str(tmp), "w", format="mp4") as out:
        video = out.add_stream("libx264", rate=fps)
        video.width, video.height, video.pix_fmt = width, height, "yuv420p"
        video.options = {"preset": "ultrafast", "tune": "zerolatency"}
        if rotation:
            video.set_display_rotation(rotation)
        sound = out.add_stream("aac", rate=AUDIO_RATE, layout="mono") if audio else None
        frame = _grey_frame(av, width, height).reformat(format="yuv420p")
        for index in range(frames):
            frame.pts = index
            out.mux(video.encode(frame))
        out.mux(video.encode(None))
        if sound is not None:
            samples = AUDIO_RATE * frames // fps
            chunk = av.AudioFrame(format="fltp", layout="mono", samples=samples)
            for plane in chunk.planes:
                plane.update(bytes(plane.buffer_size))  # float zeros: silence
            chunk.sample_rate, chunk.pts, chunk.time_base = AUDIO_RATE, 0, Fraction(1, AUDIO_RATE)
            out.mux(sound.encode(chunk))
            out.mux(sound.encode(None))
    os.replace(tmp, path)
    return path


def _grey_frame(av: Any, width: int, height: int) -> Any:
    """One flat grey RGB frame, filled through PyAV's own plane buffer: no numpy, which the wizard
    does not depend on (PyAV's ndarray helpers need it)."""
    frame = av.VideoFrame(width, height, "rgb24")
    plane = frame.planes[0]
    plane.update(bytes([96]) * plane.buffer_size)
    return frame


def _same_clip(
    path: Path, frames: int, width: int, height: int, audio: bool, fps: int, rotation: int
) -> bool:
    from ltx_wizard.core.dataset.clip_probe import probe_clip

    if not path.is_file():
        return False
    facts = probe_clip(path, fallback=False)
    return facts.error is None and (
        facts.frames,
        facts.width,
        facts.height,
        facts.has_audio,
        facts.fps,
        facts.rotation,
    ) == (frames, width, height, audio, float(fps), rotation % 360)


def write_image(path: Path, width: int = 1280, height: int = 720) -> Path:
    """A real PNG still (the trainer opens .png/.jpg/.jpeg as one frame)."""
    from ltx_wizard.demo.media_cache import cached

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return cached(path, ("image", width, height), lambda target: _encode_image(target, width, height))


def _encode_image(path: Path, width: int, height: int) -> Path:
    import av

    tmp = _tmp(path)
    with av.open(str(tmp), "w", format="image2") as out:
        still = out.add_stream("png", rate=1)
        still.width, still.height, still.pix_fmt = width, height, "rgb24"
        out.mux(still.encode(_grey_frame(av, width, height)))
        out.mux(still.encode(None))
    os.replace(tmp, path)
    return path


def make_clip_dataset(
    folder: Path, clips: list[dict] | int = 3, *, fmt: str = "json", name: str = "dataset"
) -> Path:
    """`folder`/videos/clip_NN.mp4 (each dict: write_clip's options) and a dataset file naming
    them with a caption each."""
    folder = Path(folder)
    if isinstance(clips, int):
        clips = [{} for _ in range(clips)]
    entries = []
    for i, facts in enumerate(clips):
        rel = f"videos/clip_{i:02d}.mp4"
        write_clip(folder / rel, **facts)
        entries.append({"caption": f"A look-alike clip number {i}, a cat on a sunny floor", "video": rel})
    path = folder / f"{name}.{fmt}"
    if fmt == "json":
        path.write_text(json.dumps(entries, indent=2) + "\n", encoding="utf-8")
    elif fmt == "jsonl":
        path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    else:
        import csv

        with open(path, "w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=["caption", "video"])
            writer.writeheader()
            writer.writerows(entries)
    return path
