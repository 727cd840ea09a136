"""The display-matrix rotation of an MP4/MOV clip, read from its track header without decoding.

FFmpeg's mov demuxer builds a video stream's display-matrix side data from the `tkhd` matrix of
its track times the `mvhd` movie matrix (libavformat/mov.c mov_read_tkhd), and
av_display_rotation_get turns it into degrees. PyAV exposes that side data only on decoded
frames, so reading it there would cost a decode per clip; the same few header bytes are read here
instead (a handful of seeks, the sample tables are skipped). Other containers are left to the
caller (None).
"""

from __future__ import annotations

import math
import struct
from pathlib import Path
from typing import BinaryIO, Iterator

MAX_BOXES = 4096  # boxes walked per level: real files hold tens; a corrupt one must end
_IDENTITY = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)


def _boxes(f: BinaryIO, start: int, end: int) -> Iterator[tuple[bytes, int, int]]:
    """(type, content start, box end) of each box between start and end."""
    at = start
    for _ in range(MAX_BOXES):
        if at + 8 > end:
            return
        f.seek(at)
        head = f.read(8)
        if len(head) < 8:
            return
        size, kind = struct.unpack(">I4s", head)
        body = at + 8
        if size == 1:  # 64-bit size follows
            big = f.read(8)
            if len(big) < 8:
                return
            size, body = struct.unpack(">Q", big)[0], at + 16
        elif size == 0:  # to the end of the enclosing box
            size = end - at
        if size < body - at:
            return
        yield kind, body, min(at + size, end)
        at += size


def _matrix(f: BinaryIO, body: int, v0_offset: int, v1_offset: int) -> tuple[float, ...] | None:
    f.seek(body)
    version = f.read(1)
    if not version:
        return None
    f.seek(body + (v1_offset if version[0] == 1 else v0_offset))
    raw = f.read(36)
    if len(raw) < 36:
        return None
    values = struct.unpack(">9i", raw)
    # a, b, c, d, x, y are 16.16 fixed point; u, v, w are 2.30 (ISO/IEC 14496-12 8.3.2)
    return tuple(v / (1 << (30 if i % 3 == 2 else 16)) for i, v in enumerate(values))


def _handler(f: BinaryIO, mdia: tuple[int, int]) -> bytes:
    for kind, body, _end in _boxes(f, *mdia):
        if kind == b"hdlr":
            f.seek(body + 8)  # version/flags, pre_defined
            return f.read(4)
    return b""


def _video_track_matrix(f: BinaryIO, trak: tuple[int, int]) -> tuple[float, ...] | None:
    matrix, video = None, False
    for kind, body, end in _boxes(f, *trak):
        if kind == b"tkhd":
            matrix = _matrix(f, body, 40, 52)
        elif kind == b"mdia":
            video = _handler(f, (body, end)) == b"vide"
    return matrix if video else None


def _multiply(a: tuple[float, ...], b: tuple[float, ...]) -> tuple[float, ...]:
    return tuple(sum(a[i * 3 + e] * b[e * 3 + j] for e in range(3)) for i in range(3) for j in range(3))


def rotation_degrees(matrix: tuple[float, ...]) -> int:
    """Counter-clockwise degrees, 0/90/180/270 (libavutil/display.c av_display_rotation_get,
    rounded to the nearest quarter turn)."""
    scale0 = math.hypot(matrix[0], matrix[3])
    scale1 = math.hypot(matrix[1], matrix[4])
    if not scale0 or not scale1:
        return 0
    angle = -math.degrees(math.atan2(matrix[1] / scale1, matrix[0] / scale0))
    return int(round(angle / 90.0)) * 90 % 360


def mp4_rotation(path: Path) -> int | None:
    """The first video track's rotation; None when the file holds no readable movie header."""
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            moov = next(((b, e) for k, b, e in _boxes(f, 0, size) if k == b"moov"), None)
            if moov is None:
                return None
            movie: tuple[float, ...] = _IDENTITY
            track: tuple[float, ...] | None = None
            for kind, body, end in _boxes(f, *moov):
                if kind == b"mvhd":
                    movie = _matrix(f, body, 36, 48) or _IDENTITY
                elif kind == b"trak" and track is None:
                    track = _video_track_matrix(f, (body, end))
    except (OSError, struct.error):
        return None
    return None if track is None else rotation_degrees(_multiply(track, movie))
