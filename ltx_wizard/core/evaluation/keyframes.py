"""Keyframes of a render, decoded with PyAV (what the trainer itself reads video with), scaled to
a few dozen pixels for a contact sheet in the terminal.

Frames are picked evenly from the first to the last, decoded in one pass and scaled by FFmpeg's
scaler (`VideoFrame.reformat`) to RGB. A file PyAV cannot open, or one without a video stream (an
audio-only `.wav` render), comes back with its reason instead of frames.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.io.bounded import open_regular

MAX_DECODE = 2000  # frames walked at most (a render has ~100): a huge file stays bounded


@dataclass(frozen=True)
class Frame:
    width: int
    height: int
    rgb: bytes  # width * height * 3, rows top to bottom
    time_s: float | None

    def pixel(self, x: int, y: int) -> tuple[int, int, int]:
        at = (y * self.width + x) * 3
        return self.rgb[at], self.rgb[at + 1], self.rgb[at + 2]


@dataclass(frozen=True)
class Keyframes:
    path: Path
    frames: list[Frame] = field(default_factory=list)
    width: int | None = None  # the video's own size
    height: int | None = None
    fps: float | None = None
    count: int | None = None  # frames in the file
    error: str | None = None


def picks(total: int, count: int) -> list[int]:
    """`count` frame indexes spread from the first to the last of `total`."""
    if total <= 0 or count <= 0:
        return []
    if count == 1 or total == 1:
        return [0]
    return sorted({round(i * (total - 1) / (count - 1)) for i in range(count)})


def _clamp(value: float) -> int:
    return 0 if value < 0 else 255 if value > 255 else int(value + 0.5)


def _yuv_pixel(planes: list[bytes], strides: list[int], x: int, y: int) -> tuple[int, int, int]:
    """One pixel of a 4:2:0 frame in BT.601 limited range, as its decoder left it."""
    luma = planes[0][y * strides[0] + x] - 16
    u = planes[1][(y // 2) * strides[1] + x // 2] - 128
    v = planes[2][(y // 2) * strides[2] + x // 2] - 128
    return (
        _clamp(1.164 * luma + 1.596 * v),
        _clamp(1.164 * luma - 0.392 * u - 0.813 * v),
        _clamp(1.164 * luma + 2.017 * u),
    )


def _rgb(frame: Any, width: int, height: int) -> bytes:  # an av.VideoFrame
    """The frame at width x height: the average of four points in each cell of the picture.
    Computed here, not by FFmpeg's scaler: its SIMD path depends on how the buffers happen to be
    aligned, so the same file gave colours a level apart from one run to the next."""
    if frame.format.name not in ("yuv420p", "yuvj420p"):
        frame = frame.reformat(format="yuv420p")
    planes = [bytes(p) for p in frame.planes[:3]]
    strides = [p.line_size for p in frame.planes[:3]]
    src_w, src_h = frame.width, frame.height
    out = bytearray()
    for y in range(height):
        for x in range(width):
            points = [
                _yuv_pixel(
                    planes,
                    strides,
                    min(src_w - 1, int((x + fx) * src_w / width)),
                    min(src_h - 1, int((y + fy) * src_h / height)),
                )
                for fx in (0.25, 0.75)
                for fy in (0.25, 0.75)
            ]
            out += bytes(sum(p[c] for p in points) // 4 for c in range(3))
    return bytes(out)


def _scaled(frame: Any, width: int, height: int) -> bytes:
    """FFmpeg's scaler to RGB, rows copied out of the plane's padded lines."""
    plane = frame.reformat(width=width, height=height, format="rgb24").planes[0]
    data, stride = bytes(plane), plane.line_size
    return b"".join(data[y * stride : y * stride + width * 3] for y in range(height))


def _regular(path: Path) -> BinaryIO:
    """The render opened as a regular file for PyAV to read: a FIFO, a device or a folder in a
    render's place (a run folder is foreign input) is refused at once instead of blocking the
    reader, and the screen that shows it, forever. OSError for PyAV's callers to report."""
    try:
        handle = open_regular(path, what="render")
    except WizardError as exc:
        raise OSError(exc.message) from None
    if handle is None:
        raise FileNotFoundError(f"render {path} does not exist")
    return handle


def video_size(path: Path) -> tuple[int, int] | None:
    """The first video stream's width and height as stored; None when there is none to read."""
    try:
        import av
    except ImportError:
        return None
    try:
        with _regular(path) as handle, av.open(handle) as container:
            if not container.streams.video:
                return None
            codec = container.streams.video[0].codec_context
            return (codec.width, codec.height) if codec.width and codec.height else None
    except (av.FFmpegError, OSError, ValueError):
        return None


def _count(path: Path) -> int:
    import av

    with _regular(path) as handle, av.open(handle) as container:
        return sum(1 for _ in container.decode(video=0))


def decode(
    path: Path, count: int = 4, width: int = 32, height: int | None = None, *, scaler: bool = False
) -> Keyframes:
    """Up to `count` frames scaled to `width` pixels (height kept to the video's aspect, even,
    unless given). `scaler`: FFmpeg's scaler, fast for the hundreds of pixels a richer image
    protocol shows (its last bits vary run to run: no snapshot draws through it)."""
    try:
        import av
    except ImportError:
        return Keyframes(Path(path), error="PyAV (av) is not installed: pip install av")
    try:
        with _regular(path) as handle, av.open(handle) as container:
            if not container.streams.video:
                return Keyframes(Path(path), error="no video stream (an audio-only render)")
            stream = container.streams.video[0]
            total = stream.frames or _count(path)
            src_w, src_h = stream.codec_context.width, stream.codec_context.height
            height = height or max(2, round(width * src_h / max(src_w, 1) / 2) * 2)
            wanted, frames = set(picks(min(total, MAX_DECODE), count)), []
            for index, frame in enumerate(container.decode(stream)):
                if index in wanted:
                    time_s = float(frame.time) if frame.time is not None else None
                    rgb = _scaled(frame, width, height) if scaler else _rgb(frame, width, height)
                    frames.append(Frame(width, height, rgb, time_s))
                if index >= max(wanted, default=0):
                    break
            fps = float(stream.average_rate) if stream.average_rate else None
    except (av.FFmpegError, OSError, ValueError) as exc:
        return Keyframes(Path(path), error=f"PyAV cannot read it: {exc}")
    return Keyframes(Path(path), frames, src_w, src_h, fps, total)
