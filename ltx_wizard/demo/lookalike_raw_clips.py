"""Real tiny videos made with PyAV, the raw material `prepare` starts from (tests, the demo):
a long clip with hard cuts between solid-colour scenes, a phone clip stored rotated (display
matrix), a silent clip, and plain ones, each with a tone on its soundtrack unless silent.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

COLOURS = ((200, 40, 40), (40, 160, 60), (40, 60, 200), (220, 200, 40), (150, 60, 160))
TONE_RATE = 16_000


def write_video(
    path: Path,
    *,
    frames: int = 60,
    width: int = 128,
    height: int = 72,
    fps: int = 24,
    audio: bool = True,
    rotation: int = 0,
    scenes: int = 1,
    colour: int = 0,
) -> Path:
    """An H.264 MP4 of `frames` frames in `scenes` solid-colour stretches (hard cuts between),
    a display-matrix `rotation` (counter-clockwise degrees) and a sine tone unless silent."""
    import av

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with av.open(str(path), "w") as out:
        video = out.add_stream("libx264", rate=fps)
        video.width, video.height, video.pix_fmt = width, height, "yuv420p"
        if rotation:
            video.set_display_rotation(rotation)
        sound = out.add_stream("aac", rate=TONE_RATE) if audio else None
        for index in range(frames):
            rgb = COLOURS[(colour + index * scenes // frames) % len(COLOURS)]
            frame = av.VideoFrame(width, height, "rgb24")
            shade = index % 8  # a little motion inside a scene, far below a cut
            frame.planes[0].update(bytes(max(0, c - shade) for c in rgb) * (width * height))
            for packet in video.encode(frame):
                out.mux(packet)
        for packet in video.encode():
            out.mux(packet)
        if sound is not None:
            _tone(av, out, sound, frames / fps)
    return path


def _tone(av, out, stream, seconds: float) -> None:
    import math
    import struct

    count = int(TONE_RATE * seconds)
    period = 160  # a 100 Hz tone: one period, repeated
    wave = b"".join(struct.pack("<h", int(3000 * math.sin(2 * math.pi * i / period))) for i in range(period))
    data = (wave * (count // period + 1))[: count * 2]
    frame = av.AudioFrame(format="s16", layout="mono", samples=count)
    frame.planes[0].update(data)
    frame.sample_rate, frame.time_base, frame.pts = TONE_RATE, Fraction(1, TONE_RATE), 0
    for packet in stream.encode(frame):
        out.mux(packet)
    for packet in stream.encode(None):
        out.mux(packet)


def write_raw_clips(folder: Path) -> Path:
    """The demo's raw clips: `long_take.mp4` (12 s, three scenes), `phone.mp4` (stored
    landscape, shown portrait: rotated 270° counter-clockwise, as phones write it),
    `quiet.mp4` (no sound) and two plain clips."""
    folder = Path(folder)
    write_video(folder / "long_take.mp4", frames=288, scenes=3)
    write_video(folder / "phone.mp4", frames=60, rotation=-90, colour=3)
    write_video(folder / "quiet.mp4", frames=60, audio=False, colour=1)
    write_video(folder / "beach.mp4", frames=72, colour=2)
    write_video(folder / "street.mp4", frames=66, colour=4)
    return folder
