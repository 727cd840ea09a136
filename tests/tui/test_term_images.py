"""The keyframes' richer protocols: which one each environment gets (from the environment alone,
tmux's setting read through `tmux show`), and escape sequences that decode back to the pixels
they carry (Kitty's base64 RGB and placements, Sixel's header, colour registers and bands)."""

from __future__ import annotations

import base64
import re
import unicodedata

import pytest

from ltx_wizard.tui.images import kitty, sixel
from ltx_wizard.tui.images.choice import HALFBLOCKS, KITTY, SIXEL, TMUX_SETTING, choose, tmux_passthrough

PLAIN = {"TERM": "xterm-256color", "PATH": "/nowhere"}
NEVER = lambda env: pytest.fail("tmux asked outside tmux")  # noqa: E731


@pytest.mark.parametrize(
    "env, protocol, says",
    [
        ({"KITTY_WINDOW_ID": "1", "TERM": "xterm-kitty"}, KITTY, "TERM says so"),
        ({"TERM": "xterm-kitty"}, KITTY, "TERM says so"),  # over ssh, TERM travels
        ({"TERM_PROGRAM": "ghostty", "TERM": "xterm-ghostty"}, KITTY, "TERM_PROGRAM says so"),
        ({"TERM_PROGRAM": "WezTerm", "TERM": "xterm-256color"}, SIXEL, "TERM_PROGRAM says so"),
        ({"TERM_PROGRAM": "iTerm.app", "TERM": "xterm-256color"}, SIXEL, "TERM_PROGRAM says so"),
        ({"LC_TERMINAL": "iTerm2", "TERM": "xterm-256color"}, SIXEL, "TERM says so"),
        ({"TERM": "foot"}, SIXEL, "TERM says so"),
        (PLAIN, HALFBLOCKS, "this terminal does not say it draws images"),
        ({"TERM": "linux"}, HALFBLOCKS, "TERM=linux draws no images"),
        ({"TERM": "xterm-kitty", "NO_COLOR": "1"}, HALFBLOCKS, "NO_COLOR is set"),
    ],
)
def test_the_protocol_comes_from_what_the_terminal_says_of_itself(env, protocol, says):
    found = choose(env, passthrough=NEVER)
    assert found.protocol == protocol and says in found.reason
    assert not found.passthrough
    assert found.note == (protocol != HALFBLOCKS)


def test_the_wizards_own_choice_wins_and_a_bad_one_is_said():
    assert choose(PLAIN, "sixel", passthrough=NEVER).protocol == SIXEL
    assert (
        choose({**PLAIN, "LTX_WIZARD_GRAPHICS": "kitty"}, passthrough=NEVER).reason
        == "asked for with LTX_WIZARD_GRAPHICS=kitty"
    )
    forced = choose({"TERM": "xterm-kitty", "LTX_WIZARD_GRAPHICS": "kitty"}, "halfblocks", passthrough=NEVER)
    assert forced.protocol == HALFBLOCKS and forced.reason == "asked for with --graphics"
    bad = choose({**PLAIN, "LTX_WIZARD_GRAPHICS": "png"}, passthrough=NEVER)
    assert bad.protocol == HALFBLOCKS and "LTX_WIZARD_GRAPHICS=png is none of" in bad.reason
    # no terminal (tests, pipes): half-blocks unless asked for; few colours: half-blocks
    assert choose({"TERM": "xterm-kitty"}, headless=True).protocol == HALFBLOCKS
    assert choose({"TERM": "xterm-kitty"}, "kitty", headless=True).protocol == KITTY
    assert choose({"TERM": "xterm-kitty"}, color_system="standard").protocol == HALFBLOCKS
    assert choose({"TERM": "xterm-kitty"}, color_system="256").protocol == KITTY
    assert choose({"TERM": "foot"}, color_system="standard").protocol == SIXEL  # its own palette


def _fake_tmux(tmp_path, setting):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / "tmux"
    script.write_text(f'#!/bin/sh\n[ "$*" = "show -gv allow-passthrough" ] && echo {setting}\n')
    script.chmod(0o755)
    return {
        "PATH": str(bin_dir),
        "TMUX": "/tmp/tmux-1/default,1,0",
        "TERM": "tmux-256color",
        "KITTY_WINDOW_ID": "3",
    }


def test_tmux_passes_kitty_images_only_with_its_passthrough_on(tmp_path):
    off = _fake_tmux(tmp_path, "off")
    assert tmux_passthrough(off) == "off"
    found = choose(off)
    assert found.protocol == HALFBLOCKS and TMUX_SETTING in found.reason and found.note
    on = _fake_tmux(tmp_path, "on")
    found = choose(on)
    assert found.protocol == KITTY and found.passthrough
    # the terminal outside tmux unknown: half-blocks, saying how to try
    plain = {k: v for k, v in on.items() if k != "KITTY_WINDOW_ID"}
    assert "the terminal outside it unknown" in choose(plain).reason
    # no tmux to ask: as if off
    assert tmux_passthrough({**on, "PATH": str(tmp_path / "none")}) is None
    assert choose({**on, "PATH": str(tmp_path / "none")}).protocol == HALFBLOCKS
    # asked for kitty inside tmux: wrapped for the passthrough
    assert choose(off, "kitty").passthrough


_APC = re.compile(r"\x1b_G([^;\x1b]*)(?:;([^\x1b]*))?\x1b\\")


def _commands(data):
    return [
        (dict(kv.split("=") for kv in keys.split(",")), payload or "") for keys, payload in _APC.findall(data)
    ]


def test_kitty_sends_the_rgb_bytes_and_a_placement_that_decode_back():
    rgb = bytes(range(256)) * 90  # 48 x 160 px, 23040 bytes: several chunks of base64
    data = kitty.transmit(4242, 48, 160, rgb, cols=6, rows=10)
    commands = _commands(data)
    first, *rest, place = commands
    assert first[0] == {"a": "t", "f": "24", "s": "48", "v": "160", "i": "4242", "q": "2", "m": "1"}
    assert all(keys == {"m": "1", "q": "2"} for keys, _ in rest[:-1])
    assert rest[-1][0] == {"m": "0", "q": "2"}
    payload = "".join(p for _, p in [first, *rest])
    assert all(len(p) <= kitty.CHUNK for _, p in [first, *rest])
    assert base64.standard_b64decode(payload) == rgb
    assert place == ({"a": "p", "U": "1", "i": "4242", "c": "6", "r": "10", "q": "2"}, "")
    assert data.count("\x1b\\") == len(commands)  # nothing but the commands
    with pytest.raises(ValueError):
        kitty.transmit(1, 2, 2, b"\0" * 11, 1, 1)


def test_kitty_placeholders_number_every_cell_and_carry_the_id_in_their_colour():
    row = kitty.placeholder_row(0x123456, 2, 3, truecolor=True)
    cells = re.findall(f"{kitty.PLACEHOLDER}(.)(.)", row.plain)
    assert cells == [(kitty.DIACRITICS[2], kitty.DIACRITICS[c]) for c in range(3)]
    assert row.style.color.triplet == (0x12, 0x34, 0x56)
    small = kitty.placeholder_row(200, 0, 1, truecolor=False)
    assert small.style.color.number == 200
    assert 16 <= kitty.new_id(False) <= 255


def test_kitty_in_tmux_is_wrapped_and_unwraps_to_the_same_commands():
    plain = kitty.transmit(7, 2, 1, b"\1\2\3\4\5\6", 1, 1)
    wrapped = kitty.transmit(7, 2, 1, b"\1\2\3\4\5\6", 1, 1, passthrough=True)
    head, *pieces = wrapped.split("\x1bPtmux;")
    assert head == "" and len(pieces) == 2 and all(p.endswith("\x1b\\") for p in pieces)
    inner = "".join(p[:-2].replace("\x1b\x1b", "\x1b") for p in pieces)
    assert inner == plain
    assert kitty.delete(7) == "\x1b_Ga=d,d=I,i=7,q=2\x1b\\"


def test_the_row_column_marks_are_the_protocols_table():
    # kitty's rowcolumn-diacritics.txt: combining class 230 marks without decompositions,
    # less those that compose in normalisation
    composing = {
        0x300,
        0x301,
        0x302,
        0x303,
        0x304,
        0x306,
        0x307,
        0x308,
        0x309,
        0x30A,
        0x30B,
        0x30C,
        0x30F,
        0x311,
        0x313,
        0x314,
        0x342,
        0x653,
        0x654,
    }
    rule = [
        chr(c)
        for c in range(0x300, 0x700)
        if unicodedata.combining(chr(c)) == 230
        and unicodedata.category(chr(c)) == "Mn"
        and not unicodedata.decomposition(chr(c))
        and c not in composing
    ]
    assert list(kitty.DIACRITICS) == rule[: kitty.MAX_CELLS]


def _decode_sixel(data):
    """A small Sixel reader: size, registers, and each pixel's register (None: left unset)."""
    assert data.startswith("\x1bP0;1;0q") and data.endswith("\x1b\\")
    body = data[len("\x1bP0;1;0q") : -2]
    size = re.match(r'"1;1;(\d+);(\d+)', body)
    width, height = int(size.group(1)), int(size.group(2))
    body = body[size.end() :]
    registers = {int(n): tuple(map(int, rgb)) for n, *rgb in re.findall(r"#(\d+);2;(\d+);(\d+);(\d+)", body)}
    body = re.sub(r"#\d+;2;\d+;\d+;\d+", "", body)
    pixels = [[None] * width for _ in range(height)]
    colour, x, top = None, 0, 0
    for token in re.findall(r"#\d+|!\d+[?-~]|[?-~]|\$|-", body):
        if token.startswith("#"):
            colour = int(token[1:])
        elif token == "$":
            x = 0
        elif token == "-":
            x, top = 0, top + 6
        else:
            count, char = (int(token[1:-1]), token[-1]) if token.startswith("!") else (1, token)
            for _ in range(count):
                for bit in range(6):
                    if (ord(char) - 63) >> bit & 1:
                        assert pixels[top + bit][x] is None, "a pixel painted twice"
                        pixels[top + bit][x] = colour
                x += 1
    return width, height, registers, pixels


def test_sixel_has_its_size_registers_and_bands_and_decodes_to_the_pixels():
    width, height = 13, 10  # a partial last band, runs and single columns
    rgb = bytearray()
    for y in range(height):
        for x in range(width):
            rgb += bytes((255, 0, 0)) if x < 6 else bytes((x * 19 % 256, y * 25, 128))
    data = sixel.encode(width, height, bytes(rgb))
    assert "!6" in data  # the red run, run-length coded
    got_w, got_h, registers, pixels = _decode_sixel(data)
    assert (got_w, got_h) == (width, height)
    assert registers[sixel.register(255, 0, 0)] == (100, 0, 0)
    for y in range(height):
        for x in range(width):
            at = (y * width + x) * 3
            expected = sixel.register(*rgb[at : at + 3])
            assert pixels[y][x] == expected, (x, y)
            r, g, b = registers[expected]
            assert all(abs(p * 255 / 100 - v) <= 26 for p, v in zip((r, g, b), rgb[at : at + 3]))
    rows, part = sixel.cropped(width, height, bytes(rgb), 6, 99)
    assert rows == 4 and part == bytes(rgb[6 * width * 3 :])
