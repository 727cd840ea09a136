"""Line streaming, the one path from a child's output to lines: `LineSplitter` cuts bytes into
lines (each capped, in time linear in the output even when it never ends a line), and
`run_logged` runs a child of the service with its output written to a log and handed to a
callback line by line. child.py's readers cut lines with the same splitter.

The log is a `write` callable, not a path: opening it safely (no link followed, inside the run
folder) and saying a full disk in one line belong to core/io, which sits above this package.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Callable, Mapping, Sequence

from ltx_wizard.core.proc.spawn import spawn_async
from ltx_wizard.core.proc.stop import DEFAULT_GRACES, Graces

MAX_LINE_BYTES = 64 * 1024
READ_CHUNK = 64 * 1024
# rich redraws its progress bars with a carriage return: with `cr_ends_line` each redraw is a line
_CR, _LF = b"\r", b"\n"


class LineSplitter:
    """Bytes in, complete lines out as (bytes, truncated). A line longer than `cap` bytes is cut
    at the cap and the rest of it skipped up to its end, so memory stays bounded and each byte is
    looked at a fixed number of times."""

    def __init__(self, cap: int = MAX_LINE_BYTES, *, cr_ends_line: bool = False) -> None:
        self.cap = cap
        self.cr_ends_line = cr_ends_line
        self._buf = bytearray()
        self._dropped = False  # the current line went over the cap; skip bytes until its end

    def feed(self, chunk: bytes) -> list[tuple[bytes, bool]]:
        """The lines that `chunk` completes, in order."""
        if self.cr_ends_line:
            chunk = chunk.replace(_CR, _LF)
        parts = chunk.split(_LF)
        lines: list[tuple[bytes, bool]] = []
        last = len(parts) - 1
        for i, part in enumerate(parts):
            room = self.cap - len(self._buf)
            if len(part) > room:
                part, self._dropped = part[: max(room, 0)], True
            self._buf += part
            if i < last:  # a line end closed this line
                lines.append((bytes(self._buf), self._dropped))
                self._buf, self._dropped = bytearray(), False
        return lines

    def end(self) -> tuple[bytes, bool] | None:
        """The unfinished last line at end of output, if there is one."""
        if not self._buf and not self._dropped:
            return None
        line = (bytes(self._buf), self._dropped)
        self._buf, self._dropped = bytearray(), False
        return line


def decode_line(raw: bytes) -> str:
    return raw.decode("utf-8", "replace").rstrip("\r")


async def stream_lines(
    reader: asyncio.StreamReader,
    on_line: Callable[[str], None],
    *,
    write: Callable[[bytes], None] = lambda data: None,
    splitter: LineSplitter | None = None,
) -> None:
    """Read `reader` to its end: every byte to `write` (the log), every line handed to `on_line`
    as it completes."""
    split = splitter or LineSplitter(cr_ends_line=True)
    while chunk := await reader.read(READ_CHUNK):
        write(chunk)
        for raw, _ in split.feed(chunk):
            on_line(decode_line(raw))
        await asyncio.sleep(0)  # a full pipe never suspends read(): keys and timers get their turn
    if (rest := split.end()) is not None:
        on_line(decode_line(rest[0]))


async def run_logged(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    write: Callable[[bytes], None],
    on_line: Callable[[str], None] = lambda line: None,
    graces: Graces = DEFAULT_GRACES,
) -> int:
    """Run `argv` (never through a shell) as a child of the service (its own session, tagged,
    registered), stdout and stderr together: the exact command, then its output, to `write` (the
    log), its lines handed to `on_line` (a carriage return ends one too). Returns the exit code;
    cancelling, a failing callback or a failing write stops the child by the one stop rule, then
    raises."""
    argv = [str(a) for a in argv]
    write(("$ " + " ".join(argv) + "\n").encode())  # the exact command first: the log says what ran
    child = await spawn_async(
        argv,
        env=env,
        graces=graces,
        cwd=str(cwd),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    try:
        assert child.proc.stdout is not None
        await stream_lines(child.proc.stdout, on_line, write=write)
        code = await child.proc.wait()
    except BaseException:
        await asyncio.shield(child.stop())  # a cancel waits for the stop, which it cannot cut short
        raise
    await child.stop()  # the leader is gone: what it left behind goes too
    return code
