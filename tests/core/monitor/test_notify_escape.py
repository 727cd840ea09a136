"""The notification's escape sequences: OSC 777, OSC 9, kitty's OSC 99, BEL, the tmux wrapper,
and text from a hostile run (its folder's name, the trainer's error) kept inside its field."""

from __future__ import annotations

import base64
import re

import pytest

from ltx_wizard.core.monitor.notify_escape import safe_field, sequences, tmux_wrap

ESC, ST, BEL = "\x1b", "\x1b\\", "\x07"
PLAIN: dict[str, str] = {"TERM": "xterm-256color"}


def test_plain_terminal_gets_osc_777_then_osc_9_then_bel():
    out = sequences("run-a: training done at step 2,000", PLAIN)
    assert out == (
        f"{ESC}]777;notify;ltx-wizard;run-a: training done at step 2,000{ST}"
        f"{ESC}]9;ltx-wizard: run-a: training done at step 2,000{ST}"
        f"{BEL}"
    )


@pytest.mark.parametrize("env", [{"KITTY_WINDOW_ID": "3"}, {"TERM": "xterm-kitty"}])
def test_kitty_gets_osc_99_with_base64_payloads_instead(env):
    out = sequences("run-a: failed", env)
    title, body = re.findall(r"\x1b\]99;([^;]*);([A-Za-z0-9+/=]*)\x1b\\", out)
    assert title[0] == "i=ltxw:d=0:e=1" and base64.b64decode(title[1]).decode() == "ltx-wizard"
    assert body[0] == "i=ltxw:d=1:p=body:e=1" and base64.b64decode(body[1]).decode() == "run-a: failed"
    assert "]777;" not in out and "]9;" not in out and out.endswith(BEL)


def test_tmux_wraps_each_osc_with_every_esc_doubled_and_leaves_bel_bare():
    out = sequences("run-a: done", {**PLAIN, "TMUX": "/tmp/tmux-1000/default,123,0"})
    assert out == (
        f"{ESC}Ptmux;{ESC}{ESC}]777;notify;ltx-wizard;run-a: done{ESC}{ESC}\\{ST}"
        f"{ESC}Ptmux;{ESC}{ESC}]9;ltx-wizard: run-a: done{ESC}{ESC}\\{ST}"
        f"{BEL}"
    )
    assert tmux_wrap(f"{ESC}]9;x{ST}") == f"{ESC}Ptmux;{ESC}{ESC}]9;x{ESC}{ESC}\\{ST}"


def test_tmux_inside_kitty_wraps_osc_99():
    out = sequences("x", {"KITTY_WINDOW_ID": "1", "TMUX": "/tmp/t,1,0"})
    assert out.startswith(f"{ESC}Ptmux;{ESC}{ESC}]99;") and out.count(f"{ESC}Ptmux;") == 2


HOSTILE = [
    "evil\x1b\\\x1b]0;pwned\x07",  # ST, then a new OSC retitling the window, ended by BEL
    "a;b;c",  # more OSC 777 fields
    "x\x9c\x9d2;owned\x9c",  # C1 ST and OSC
    "line\nbreak\rreturn",
    "nul\x00del\x7f",
    "surrogate\udcff",  # a file name that is not UTF-8, as os.fsdecode gives it
]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_stays_inside_its_field(text):
    field = safe_field(text)
    assert not re.search(r"[\x00-\x1f\x7f-\x9f;]", field), ascii(field)
    field.encode("utf-8")  # writable to the terminal
    for env in (PLAIN, {"TMUX": "/tmp/t,1,0"}):
        out = sequences(f"run {text}: done", env)
        # exactly the sequences written, nothing else opened or ended: 2 OSCs, 1 BEL
        assert out.count(BEL) == 1 and out.endswith(BEL)
        assert out.count("\x9c") == 0 and out.count("\x9d") == 0
        if "TMUX" in env:
            assert out.count(f"{ESC}Ptmux;") == 2
            inner = out.replace(f"{ESC}{ESC}", "")  # the doubled ESCs are the OSCs' own
            assert inner.count(ESC) == 4  # each wrapper's ESC P and its ST
        else:
            assert out.count(ESC) == 4  # two OSC introducers, two STs
        osc777 = out.split(f"{ESC}]777;", 1)[1].split(ST, 1)[0].replace(f"{ESC}{ESC}\\", "")
        assert osc777.count(";") == 2  # notify;TITLE;BODY


def test_a_long_text_is_cut():
    assert len(safe_field("x" * 5000)) == 240
