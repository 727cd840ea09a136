"""The Kitty graphics protocol, as the keyframe sheets use it: RGB pixels sent once, shown through
Unicode placeholders.

An image is transmitted as raw 24-bit RGB (`f=24`, `s`/`v` its size), base64 in chunks of 4096
(`m=1` on all but the last), and given a virtual placement (`a=p,U=1` with `c` columns and `r`
rows). It then appears wherever the text holds its placeholder cells: U+10EEEE followed by two
combining marks that number the cell's row and column, in the colour that carries the image id.
Being text, the cells scroll, clip and vanish under a dialog as Textual draws them, so nothing
has to track where the picture went. Every command carries `q=2`: no reply comes back on the
terminal's input, where Textual would read it as keys. Inside tmux each command is wrapped for
its passthrough (ESC doubled inside `ESC P tmux; ... ESC \\`).
"""

from __future__ import annotations

import base64
import itertools
import random

from rich.style import Style
from rich.text import Text

APC, ST = "\x1b_G", "\x1b\\"
CHUNK = 4096
PLACEHOLDER = "\U0010eeee"
# The first 64 row/column marks of the protocol's table (kitty's rowcolumn-diacritics.txt:
# combining class 230 marks of Unicode 6.0 without decompositions): images up to 64 cells a side.
DIACRITICS = tuple(
    chr(int(code, 16))
    for code in """
0305 030D 030E 0310 0312 033D 033E 033F 0346 034A 034B 034C 0350 0351 0352 0357
035B 0363 0364 0365 0366 0367 0368 0369 036A 036B 036C 036D 036E 036F 0483 0484
0485 0486 0487 0592 0593 0594 0595 0597 0598 0599 059C 059D 059E 059F 05A0 05A1
05A8 05A9 05AB 05AC 05AF 05C4 0610 0611 0612 0613 0614 0615 0616 0617 0657 0658
""".split()
)
MAX_CELLS = len(DIACRITICS)
# Ids start at a random point, as other programs in the same terminal number theirs too; with
# 256 colours the id must be a colour number past the 16 the App may remap.
_NEXT_ID = itertools.count(random.randint(1 << 16, (1 << 23) - 1))
_NEXT_SMALL = itertools.cycle(range(16, 256))


def new_id(truecolor: bool) -> int:
    return next(_NEXT_ID) if truecolor else next(_NEXT_SMALL)


def command(keys: dict[str, object], payload: str = "") -> str:
    body = ",".join(f"{k}={v}" for k, v in keys.items())
    return f"{APC}{body}{';' + payload if payload else ''}{ST}"


def tmux_wrap(sequence: str) -> str:
    return "\x1bPtmux;" + sequence.replace("\x1b", "\x1b\x1b") + "\x1b\\"


def transmit(
    image_id: int, width: int, height: int, rgb: bytes, cols: int, rows: int, *, passthrough: bool = False
) -> str:
    """The image's data and its virtual placement, ready to write to the terminal."""
    if len(rgb) != width * height * 3:
        raise ValueError(f"{len(rgb)} bytes for {width}x{height} RGB")
    data = base64.standard_b64encode(rgb).decode("ascii")
    chunks = [data[at : at + CHUNK] for at in range(0, len(data), CHUNK)] or [""]
    out = []
    for n, chunk in enumerate(chunks):
        more = int(n < len(chunks) - 1)
        keys: dict[str, object] = (
            {"a": "t", "f": 24, "s": width, "v": height, "i": image_id, "q": 2, "m": more}
            if n == 0
            else {"m": more, "q": 2}
        )
        out.append(command(keys, chunk))
    out.append(command({"a": "p", "U": 1, "i": image_id, "c": cols, "r": rows, "q": 2}))
    return "".join(tmux_wrap(s) if passthrough else s for s in out)


def delete(image_id: int, *, passthrough: bool = False) -> str:
    """Free the image and its placements in the terminal."""
    sequence = command({"a": "d", "d": "I", "i": image_id, "q": 2})
    return tmux_wrap(sequence) if passthrough else sequence


def id_style(image_id: int, truecolor: bool) -> Style:
    if truecolor:
        return Style(color=f"rgb({image_id >> 16 & 255},{image_id >> 8 & 255},{image_id & 255})")
    return Style(color=f"color({image_id})")


def placeholder_row(image_id: int, row: int, cols: int, truecolor: bool) -> Text:
    """One row of the image as text: every cell numbered in full, so a cropped row still shows."""
    cells = "".join(PLACEHOLDER + DIACRITICS[row] + DIACRITICS[col] for col in range(cols))
    return Text(cells, style=id_style(image_id, truecolor), no_wrap=True, end="")
