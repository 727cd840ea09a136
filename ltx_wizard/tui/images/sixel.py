"""Sixel, as the keyframe sheets use it: a few thousand RGB pixels in a fixed 216-colour palette.

Each pixel is rounded to six levels a channel (a 6x6x6 cube: colour register r*36 + g*6 + b,
defined once as `#n;2;R;G;B` in percent), then written band by band, six rows a band: per colour
present in the band, its register, then one character per column (63 + the six bits of the rows
it covers), runs of four or more as `!count`, `$` back to the band's start, `-` to the next
band. The header `ESC P 0;1;0 q` keeps unset pixels transparent and `"1;1;W;H` gives the size
so the terminal need not guess it; `ESC \\` ends it.
"""

from __future__ import annotations

LEVELS = 6
START, END = "\x1bP0;1;0q", "\x1b\\"


def level(value: int) -> int:
    return (value * (LEVELS - 1) + 127) // 255


def register(r: int, g: int, b: int) -> int:
    return level(r) * LEVELS * LEVELS + level(g) * LEVELS + level(b)


def _percent(index: int) -> tuple[int, int, int]:
    r, g, b = (round(c * 100 / (LEVELS - 1)) for c in (index // 36, index // 6 % 6, index % 6))
    return r, g, b


def _runs(line: bytearray) -> str:
    out, at = [], 0
    while at < len(line):
        end = at
        while end < len(line) and line[end] == line[at]:
            end += 1
        char, count = chr(63 + line[at]), end - at
        out.append(f"!{count}{char}" if count >= 4 else char * count)
        at = end
    return "".join(out)


def encode(width: int, height: int, rgb: bytes) -> str:
    """The picture as one Sixel sequence."""
    if len(rgb) != width * height * 3:
        raise ValueError(f"{len(rgb)} bytes for {width}x{height} RGB")
    index = [register(rgb[at], rgb[at + 1], rgb[at + 2]) for at in range(0, len(rgb), 3)]
    used = sorted(set(index))
    parts = [START, f'"1;1;{width};{height}']
    parts += [f"#{n};2;{r};{g};{b}" for n in used for r, g, b in [_percent(n)]]
    for top in range(0, height, 6):
        lines: dict[int, bytearray] = {}
        for bit, y in enumerate(range(top, min(top + 6, height))):
            row = index[y * width : (y + 1) * width]
            for x, colour in enumerate(row):
                line = lines.get(colour)
                if line is None:
                    line = lines[colour] = bytearray(width)
                line[x] |= 1 << bit
        colours = []
        for colour in sorted(lines):
            line = lines[colour]
            while line and not line[-1]:  # unset columns at the end need no bytes
                line.pop()
            colours.append(f"#{colour}{_runs(line)}")
        parts.append("$".join(colours) + "-")
    parts.append(END)
    return "".join(parts)


def cropped(width: int, height: int, rgb: bytes, top: int, bottom: int) -> tuple[int, bytes]:
    """Rows top..bottom (pixel rows, end excluded) of the picture: (their height, their bytes)."""
    top, bottom = max(0, top), min(height, bottom)
    return max(0, bottom - top), rgb[top * width * 3 : bottom * width * 3]
