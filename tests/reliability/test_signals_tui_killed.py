"""Issue 42, item 2, its last case for the TUI: the wizard itself killed by SIGKILL (what the OOM
killer does) runs no handler, so the Prepare screen's caption spot check (serve_captioner.py's
stand-in server and caption_videos.py) runs on under PID 1. The next start of the TUI stops them
by their tag, and says so where its user looks: on its first screen (drawn inside the app's
alternate screen, not printed before it takes the terminal) and again on the way out. The line
is checked against what happened: the killed wizard's pid and each orphan's."""

from __future__ import annotations

import re
import signal

from .children import NEXT_START_S, UP_WITHIN_S, Proc, Wizard, alive, read_proc, wait_for
from .test_signals_tui_prepare import SLOW, walk_to_the_captions
from .tui_walk import tui

ALT_ON, ALT_OFF = "\x1b[?1049h", "\x1b[?1049l"  # Textual's driver takes and gives back the terminal
CTRL_Q = "\x11"
TOAST_BORDER = "\u258c"  # the left edge of a Textual toast, on each of its rows
_CODES = re.compile(r"\x1b(?:\[([0-9;?>$]*)([A-Za-z~])|\][^\x07]*\x07|[()][AB0]|[=>])|([\r\n])")


def screen_now(output: str, rows: int = 24, cols: int = 80) -> list[str]:
    """The 80x24 screen the app's output leaves in a terminal: the characters written at each
    cursor position (Textual moves the cursor with CSI row;col H and paints changed spans, a word
    sometimes in two pieces), colours and modes left out."""
    grid = [[" "] * cols for _ in range(rows)]
    row = col = 0
    pos = 0
    for match in _CODES.finditer(output + "\x1b[H"):
        for char in output[pos : match.start()]:
            if 0 <= row < rows and 0 <= col < cols and char.isprintable():
                grid[row][col] = char
            col += 1
        pos = match.end()
        params, final, newline = match.group(1), match.group(2), match.group(3)
        if final == "H" and params is not None and "?" not in params:
            parts = [int(p) if p else 1 for p in params.split(";")] if params else [1, 1]
            row, col = parts[0] - 1, (parts[1] if len(parts) > 1 else 1) - 1
        elif newline == "\r":
            col = 0
        elif newline == "\n":
            row += 1
    return ["".join(line) for line in grid]


def toast_text(wizard: Wizard) -> str:
    """The words of the toasts on the wizard's screen now (the app's own screen, after it took the
    terminal), each row's part right of a toast's border, blanks folded."""
    raw = wizard.output
    start = raw.rfind(ALT_ON)
    if start < 0:
        return ""
    rows = [row.rsplit(TOAST_BORDER, 1)[1] for row in screen_now(raw[start:]) if TOAST_BORDER in row]
    return re.sub(r"\s+", " ", " ".join(rows)).strip()


def expected_line(killed: Wizard, orphans: list[Proc]) -> str:
    """core/proc/orphans.py's line for these orphans of `killed`, as cli.py hands it to the TUI."""
    pids = sorted(p.pid for p in orphans)
    shown = " ".join(map(str, pids[:8])) + (" ..." if len(pids) > 8 else "")
    return (
        f"ltx-wizard: stopped {len(pids)} process(es) an earlier wizard (pid {killed.proc.pid}) "
        f"left running when it was killed: pid {shown}"
    )


def test_the_tui_killed_leaves_orphans_its_next_start_stops_and_shows(tmp_path):
    with tui(tmp_path, "raw", **SLOW) as first:
        walk_to_the_captions(first, tmp_path)
        first.send(signal.SIGKILL)
        first.wait_gone()
        orphans = first.left_alive(
            0
        )  # no handler ran: what runs now runs on (the next start's line names each)
        for word in ("serve_captioner.py", "caption_videos.py"):
            assert any(word in p.cmdline for p in orphans), (word, [str(p) for p in orphans])
        line = expected_line(first, orphans)
        with tui(tmp_path, "raw") as second:
            wait_for(
                lambda: not any(alive(p) for p in orphans),
                NEXT_START_S,
                "the next start stopping the orphans: " + "; ".join(map(str, orphans)),
            )
            wait_for(
                lambda: line in toast_text(second),
                UP_WITHIN_S,  # the app's start: slow on a loaded machine
                f"{line!r} on the first screen (it shows: {screen_now(second.output)!r}, "
                f"wizard {read_proc(second.proc.pid)}, exit {second.proc.poll()})",
            )
            second.wait_shown("^n Continue ^r Re-probe")  # the Probe screen under it
            second.press(CTRL_Q)
            assert second.wait_gone() == 0
            after = second.output.rsplit(ALT_OFF, 1)[-1]
            said = [row.strip() for row in after.splitlines() if "earlier wizard" in row]
            assert said == [line]  # the exit report keeps it where the user reads it later
