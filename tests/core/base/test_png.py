"""core/base/png.py: the pure-Python PNG writer's bytes decompressed by hand (zlib) give back the
pixels, the reader reads them (and the standard row filters), and a damaged file is refused."""

from __future__ import annotations

import struct
import zlib

import pytest

from ltx_wizard.core.base.png import SIGNATURE, Image, decode, encode


def _image(width: int = 5, height: int = 3) -> Image:
    rgb = bytes(
        (x * 50 + y * 7 + c * 90) % 256 for y in range(height) for x in range(width) for c in range(3)
    )
    return Image(width, height, rgb)


def test_the_written_file_decompresses_by_hand_to_the_pixels():
    image = _image()
    data = encode(image)
    assert data[:8] == SIGNATURE and data[12:16] == b"IHDR"
    width, height, depth, colour = struct.unpack(">IIBB", data[16:26])
    assert (width, height, depth, colour) == (5, 3, 8, 2)
    at = data.index(b"IDAT") - 4
    (length,) = struct.unpack(">I", data[at : at + 4])
    raw = zlib.decompress(data[at + 8 : at + 8 + length])
    rows = [raw[y * 16 : (y + 1) * 16] for y in range(3)]
    assert all(row[0] == 0 for row in rows)  # filter none
    assert b"".join(row[1:] for row in rows) == image.rgb
    assert data.endswith(b"IEND\xaeB`\x82")


def test_the_reader_reads_back_what_the_writer_wrote():
    image = _image(7, 4)
    assert decode(encode(image)) == image
    assert decode(encode(image)).pixel(6, 3) == image.pixel(6, 3)


@pytest.mark.parametrize("kind", [1, 2, 3, 4])
def test_the_reader_undoes_each_row_filter(kind):
    # a 2x2 image whose second row is filtered by `kind` against the first: byte values chosen so
    # that the filter's prediction matters
    first, second = bytes([10, 20, 30, 40, 50, 60]), bytes([15, 25, 35, 45, 55, 65])

    def predict(i: int, row: bytes, prior: bytes) -> int:
        left = row[i - 3] if i >= 3 else 0
        up, corner = prior[i], prior[i - 3] if i >= 3 else 0
        if kind == 1:
            return left
        if kind == 2:
            return up
        if kind == 3:
            return (left + up) // 2
        p = left + up - corner
        pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
        return left if pa <= pb and pa <= pc else up if pb <= pc else corner

    filtered = bytes((second[i] - predict(i, second, first)) & 0xFF for i in range(6))
    raw = b"\x00" + first + bytes([kind]) + filtered
    header = struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)

    def chunk(k: bytes, d: bytes) -> bytes:
        return struct.pack(">I", len(d)) + k + d + struct.pack(">I", zlib.crc32(k + d))

    data = SIGNATURE + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    assert decode(data).rgb == first + second


@pytest.mark.parametrize(
    "damage, words",
    [
        (lambda d: b"GIF89a" + d[6:], "not a PNG"),
        (lambda d: d[:-12], "truncated"),
        (lambda d: d[:40] + bytes([d[40] ^ 0xFF]) + d[41:], "damaged"),
    ],
)
def test_a_damaged_file_is_refused_naming_it(damage, words):
    with pytest.raises(ValueError, match=words):
        decode(damage(encode(_image())))


def test_an_image_whose_bytes_do_not_match_its_size_is_refused():
    with pytest.raises(ValueError, match="bytes for 2x2"):
        Image(2, 2, b"\x00" * 11)
