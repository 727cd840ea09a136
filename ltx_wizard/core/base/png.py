"""PNG images written and read in pure Python (zlib and struct), for the tournament's keyframes and
its contact sheet: 8-bit RGB, no interlace, every row with filter 0 (none). Small images, so the
plain encoding is enough; no Pillow, no numpy (the wizard installs neither).

`decode` reads back what `encode` writes (and any 8-bit RGB, non-interlaced PNG whose rows use the
five standard filters); anything else is a ValueError naming what it is.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

SIGNATURE = b"\x89PNG\r\n\x1a\n"
_RGB, _DEPTH = 2, 8  # IHDR colour type 2 (truecolour), bit depth 8
MAX_SIDE = 16384  # a contact sheet of hundreds of cells stays far below it


@dataclass(frozen=True)
class Image:
    width: int
    height: int
    rgb: bytes  # width * height * 3, rows top to bottom

    def __post_init__(self) -> None:
        if not (0 < self.width <= MAX_SIDE and 0 < self.height <= MAX_SIDE):
            raise ValueError(f"an image of {self.width}x{self.height} pixels")
        if len(self.rgb) != self.width * self.height * 3:
            raise ValueError(f"{len(self.rgb)} bytes for {self.width}x{self.height} RGB pixels")

    def pixel(self, x: int, y: int) -> tuple[int, int, int]:
        at = (y * self.width + x) * 3
        return self.rgb[at], self.rgb[at + 1], self.rgb[at + 2]


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def encode(image: Image) -> bytes:
    """The image as a PNG file's bytes."""
    header = struct.pack(">IIBBBBB", image.width, image.height, _DEPTH, _RGB, 0, 0, 0)
    stride = image.width * 3
    raw = b"".join(b"\x00" + image.rgb[y * stride : (y + 1) * stride] for y in range(image.height))
    return SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(raw, 6)) + _chunk(b"IEND", b"")


def _chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    if not data.startswith(SIGNATURE):
        raise ValueError("not a PNG file (no PNG signature)")
    out, at = [], len(SIGNATURE)
    while at + 12 <= len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind, body = data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        if len(body) != length or data[at + 8 + length : at + 12 + length] != struct.pack(
            ">I", zlib.crc32(kind + body)
        ):
            raise ValueError(f"a damaged {kind.decode('latin-1')} chunk")
        out.append((kind, body))
        at += 12 + length
        if kind == b"IEND":
            return out
    raise ValueError("a truncated PNG file (no IEND chunk)")


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def _unfilter(kind: int, row: bytearray, prior: bytes) -> None:
    """One row in place, its filter undone (PNG spec, section 9: 3 bytes per pixel)."""
    for i in range(len(row)):
        left = row[i - 3] if i >= 3 else 0
        up, corner = prior[i], prior[i - 3] if i >= 3 else 0
        if kind == 1:
            row[i] = (row[i] + left) & 0xFF
        elif kind == 2:
            row[i] = (row[i] + up) & 0xFF
        elif kind == 3:
            row[i] = (row[i] + (left + up) // 2) & 0xFF
        elif kind == 4:
            row[i] = (row[i] + _paeth(left, up, corner)) & 0xFF
        elif kind != 0:
            raise ValueError(f"an unknown row filter {kind}")


def decode(data: bytes) -> Image:
    """An 8-bit RGB PNG's pixels; ValueError for anything else, naming it."""
    chunks = _chunks(data)
    if not chunks or chunks[0][0] != b"IHDR" or len(chunks[0][1]) != 13:
        raise ValueError("a PNG file without its header")
    width, height, depth, colour, _c, _f, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    if (depth, colour, interlace) != (_DEPTH, _RGB, 0):
        raise ValueError(
            f"a PNG of depth {depth}, colour type {colour}, interlace {interlace} (not 8-bit RGB)"
        )
    if not (0 < width <= MAX_SIDE and 0 < height <= MAX_SIDE):
        raise ValueError(f"a PNG of {width}x{height} pixels")
    stride = width * 3
    idat = b"".join(body for kind, body in chunks if kind == b"IDAT")
    try:  # no more than the pixels need: a small file cannot inflate without bound
        raw = zlib.decompressobj().decompress(idat, (stride + 1) * height)
    except zlib.error as exc:
        raise ValueError(f"a PNG whose pixel data cannot be inflated ({exc})") from None
    if len(raw) < (stride + 1) * height:
        raise ValueError("a PNG whose pixel data is short")
    out, prior = bytearray(), bytes(stride)
    for y in range(height):
        start = y * (stride + 1)
        row = bytearray(raw[start + 1 : start + 1 + stride])
        _unfilter(raw[start], row, prior)
        out += row
        prior = bytes(row)
    return Image(width, height, bytes(out))
