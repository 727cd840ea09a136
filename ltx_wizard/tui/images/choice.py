"""Which protocol draws the keyframes here: Kitty graphics, Sixel, or half-blocks.

Decided from the environment alone, never by asking the terminal: a query must be answered on the
terminal's input before Textual reads it, and an unanswered one costs a timeout at every start.
The wizard's own choice comes first (`--graphics`, else $LTX_WIZARD_GRAPHICS), then what the
terminal says of itself:
- Kitty graphics (Unicode placeholders, so images scroll and clip as text does) in kitty
  (KITTY_WINDOW_ID, TERM=xterm-kitty) and Ghostty (TERM_PROGRAM=ghostty, TERM=xterm-ghostty);
- Sixel in WezTerm (its Kitty graphics lack the placeholders), iTerm2 (TERM_PROGRAM=iTerm.app,
  LC_TERMINAL=iTerm2, which ssh forwards), foot and mlterm;
- half-blocks everywhere else: plain SSH (TERM alone says nothing of images), the Linux console,
  NO_COLOR (the App turns colours to grey), Kitty with fewer than 256 colours (the placeholders
  carry the image id in their colour), no terminal at all (tests, pipes), and tmux unless `allow-passthrough` is on (read with `tmux show`, off
  the event loop) and the terminal outside it is a Kitty-graphics one; Sixel in tmux only when
  asked for (tmux 3.4+ built with Sixel draws it itself).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass
from typing import Callable, Mapping

KITTY, SIXEL, HALFBLOCKS = "kitty", "sixel", "halfblocks"
CHOICES = ("auto", KITTY, SIXEL, HALFBLOCKS)
ENV = "LTX_WIZARD_GRAPHICS"
TMUX_SETTING = "set -g allow-passthrough on"
NAMES = {KITTY: "Kitty graphics", SIXEL: "Sixel", HALFBLOCKS: "half-blocks"}


@dataclass(frozen=True)
class Graphics:
    protocol: str  # KITTY, SIXEL or HALFBLOCKS
    reason: str  # why, in words
    passthrough: bool = False  # wrap the escape sequences for tmux
    note: bool = False  # worth a line on screen (a richer protocol, or a setting that blocks one)

    def line(self) -> str:
        return f"Images: {NAMES[self.protocol]} ({self.reason})"


def _outer(env: Mapping[str, str]) -> str | None:
    """The protocol the terminal says it draws (inside tmux, what its client's left behind)."""
    term, program = env.get("TERM", ""), env.get("TERM_PROGRAM", "")
    if env.get("KITTY_WINDOW_ID") or term == "xterm-kitty":
        return KITTY
    if program == "ghostty" or term == "xterm-ghostty" or env.get("GHOSTTY_RESOURCES_DIR"):
        return KITTY
    if program in ("WezTerm", "iTerm.app") or env.get("LC_TERMINAL") == "iTerm2":
        return SIXEL
    if term.startswith("foot") or term.startswith("mlterm"):
        return SIXEL
    return None


def tmux_passthrough(env: Mapping[str, str]) -> str | None:
    """tmux's allow-passthrough (on, all, off), read from the server this session runs in; None
    when it cannot be read. Runs a process: call it from a worker thread."""
    tmux = shutil.which("tmux", path=env.get("PATH"))
    if tmux is None:
        return None
    try:
        done = subprocess.run(
            [tmux, "show", "-gv", "allow-passthrough"],
            capture_output=True,
            text=True,
            timeout=2,
            env=dict(env),
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return (done.stdout.strip() or None) if done.returncode == 0 else None


def _forced(value: str, source: str, env: Mapping[str, str]) -> Graphics:
    tmux = bool(env.get("TMUX"))
    return Graphics(
        value, f"asked for with {source}", passthrough=tmux and value == KITTY, note=value != HALFBLOCKS
    )


def choose(
    env: Mapping[str, str],
    forced: str | None = None,
    *,
    color_system: str | None = None,
    headless: bool = False,
    passthrough: Callable[[Mapping[str, str]], str | None] = tmux_passthrough,
) -> Graphics:
    """The protocol for this terminal. `forced`: --graphics; `color_system`: the App console's."""
    wanted = forced if forced and forced != "auto" else None
    source = "--graphics"
    if wanted is None and env.get(ENV) and env.get(ENV) != "auto":
        wanted, source = env[ENV].strip().lower(), f"{ENV}={env[ENV]}"
        if wanted not in CHOICES:
            return Graphics(HALFBLOCKS, f"{source} is none of {', '.join(CHOICES)}", note=True)
    if wanted is not None:
        return _forced(wanted, source, env)
    if headless:
        return Graphics(HALFBLOCKS, "no terminal")
    if env.get("NO_COLOR"):
        return Graphics(HALFBLOCKS, "NO_COLOR is set")
    term = env.get("TERM", "")
    if term in ("linux", "dumb", ""):
        return Graphics(HALFBLOCKS, f"TERM={term or 'unset'} draws no images")
    outer = _outer(env)
    if outer == KITTY and color_system not in (None, "truecolor", "256"):
        # the placeholders carry the image id in their colour: 16 colours cannot
        return Graphics(
            HALFBLOCKS,
            f"the terminal shows {color_system} colours; Kitty images need 256 (COLORTERM=truecolor)",
        )
    if env.get("TMUX"):
        return _in_tmux(env, outer, passthrough)
    if outer is None:
        return Graphics(
            HALFBLOCKS, "this terminal does not say it draws images; --graphics kitty or sixel tries them"
        )
    return Graphics(
        outer,
        f"{'TERM_PROGRAM' if env.get('TERM_PROGRAM') else 'TERM'} says so; "
        "--graphics halfblocks turns them off",
        note=True,
    )


def _in_tmux(
    env: Mapping[str, str], outer: str | None, passthrough: Callable[[Mapping[str, str]], str | None]
) -> Graphics:
    if outer != KITTY:
        return Graphics(
            HALFBLOCKS,
            "inside tmux, the terminal outside it unknown: --graphics kitty or sixel tries them",
            note=True,
        )
    setting = passthrough(env)
    if setting not in ("on", "all"):
        return Graphics(
            HALFBLOCKS, f"tmux passes no images: `{TMUX_SETTING}` lets Kitty's through", note=True
        )
    return Graphics(KITTY, "through tmux's allow-passthrough", passthrough=True, note=True)


def cell_pixels(fd: int | None = None) -> tuple[int, int]:
    """A character cell's size in pixels, from the terminal's window size (TIOCGWINSZ: the
    kernel's answer, not a question to the terminal; ssh forwards it); 10x20 when unknown."""
    try:
        import fcntl
        import struct
        import termios

        fd = sys.__stdout__.fileno() if fd is None else fd
        rows, cols, xpix, ypix = struct.unpack("HHHH", fcntl.ioctl(fd, termios.TIOCGWINSZ, b"\0" * 8))
    except (ImportError, OSError, ValueError, AttributeError):
        return 10, 20
    if not (rows and cols and xpix and ypix):
        return 10, 20
    return max(1, xpix // cols), max(1, ypix // rows)
