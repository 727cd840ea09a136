"""The escape sequences of a desktop notification, and writing them to the terminal.

OSC 777 (`notify;TITLE;BODY`: urxvt, foot, Ghostty, WezTerm) and OSC 9 (`BODY`: iTerm2, WezTerm,
Windows Terminal), or on kitty (KITTY_WINDOW_ID set, or TERM=xterm-kitty) its own OSC 99 instead;
then BEL, which every terminal and tmux turn into a bell or an alert. Inside tmux ($TMUX set) each
OSC goes in tmux's passthrough wrapper (`ESC P tmux; ... ESC \\`, every ESC inside doubled; tmux
3.3+ forwards it with `set -g allow-passthrough on`); the BEL stays bare, for tmux's own bell.

The text comes from the run (its folder's name, the trainer's error): control characters (ESC,
BEL, C1's ST included) are dropped and `;`, which separates OSC 777's fields, becomes `,`, so a
hostile name cannot end the sequence early or start one of its own. kitty's payloads go base64.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Mapping
from typing import TextIO

from ltx_wizard.core.base.text_safety import clean_text, clip

TITLE = "ltx-wizard"
ESC = "\x1b"
ST = ESC + "\\"  # the string terminator ends every OSC here (BEL is sent on its own)
BEL = "\x07"
MAX_FIELD = 240  # terminals cut or drop long notifications; the line is one sentence


def safe_field(text: object) -> str:
    """One field of a sequence: a single line without control characters or `;`, valid UTF-8."""
    value = clean_text(text).replace(";", ",")
    value = value.encode("utf-8", "replace").decode("utf-8")  # a lone surrogate from a file name
    return clip(value, MAX_FIELD)


def is_kitty(env: Mapping[str, str]) -> bool:
    return bool(env.get("KITTY_WINDOW_ID")) or env.get("TERM") == "xterm-kitty"


def tmux_wrap(sequence: str) -> str:
    """tmux's passthrough: the sequence with every ESC doubled, inside ESC P tmux; ... ESC \\."""
    return f"{ESC}Ptmux;" + sequence.replace(ESC, ESC + ESC) + ST


def _b64(text: str) -> str:
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def _kitty(title: str, body: str) -> list[str]:
    """OSC 99 (kitty's desktop notifications): the title (d=0: more to come), then the body."""
    return [f"{ESC}]99;i=ltxw:d=0:e=1;{_b64(title)}{ST}", f"{ESC}]99;i=ltxw:d=1:p=body:e=1;{_b64(body)}{ST}"]


def sequences(body: str, env: Mapping[str, str], title: str = TITLE) -> str:
    """Everything written for one notification, for the terminal `env` describes."""
    title, body = safe_field(title), safe_field(body)
    if is_kitty(env):
        parts = _kitty(title, body)
    else:  # OSC 9 has no title: the body says whose it is
        parts = [f"{ESC}]777;notify;{title};{body}{ST}", f"{ESC}]9;{title}: {body}{ST}"]
    if env.get("TMUX"):
        parts = [tmux_wrap(p) for p in parts]
    return "".join(parts) + BEL


def _write_all(fd: int, data: bytes) -> None:
    while data:
        data = data[os.write(fd, data) :]


def to_terminal(data: str, fallback: TextIO | None = None) -> str | None:
    """Write `data` to the controlling terminal (/dev/tty: stdout may be a pipe), else to
    `fallback` when that is a terminal. None when written, else why not (one line)."""
    try:
        fd = os.open("/dev/tty", os.O_WRONLY | os.O_NOCTTY)
    except OSError as exc:
        why = f"/dev/tty: {exc.strerror or exc}"
    else:
        try:
            _write_all(fd, data.encode("utf-8"))
            return None
        except OSError as exc:
            why = f"/dev/tty: {exc.strerror or exc}"
        finally:
            os.close(fd)
    if fallback is not None and fallback.isatty():
        fallback.write(data)
        fallback.flush()
        return None
    return f"no terminal to notify ({why}; stdout is not a terminal)"
