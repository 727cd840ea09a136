"""A program in a pseudo-terminal, as a user's terminal runs it: for the start-up and flood benchmarks.

The program gets a real tty (a window size, raw keys) and writes its screen to it; a reader
thread timestamps what arrives, with escape sequences stripped, so a benchmark can ask "when did
this text first reach the screen" and "how long from this key to that text".
"""

from __future__ import annotations

import codecs
import fcntl
import os
import re
import signal
import struct
import subprocess
import termios
import threading
import time
from pathlib import Path
from typing import Mapping, Sequence

# CSI (incl. private modes), OSC (ended by BEL or ST), DCS/APC strings, and two-byte escapes.
_ESC = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[P_^][^\x1b]*\x1b\\|\x1b[@-Z\\-_]"
)


class PtyApp:
    def __init__(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        size: tuple[int, int] = (120, 40),
        stderr: Path | None = None,
        cwd: str | os.PathLike[str] | None = None,
    ) -> None:
        master, slave = os.openpty()
        cols, rows = size
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        full_env = {**os.environ, "TERM": "xterm-256color", "COLORTERM": "truecolor", **(env or {})}
        full_env.pop("TEXTUAL", None)
        self._err = open(stderr, "wb") if stderr else None
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            list(argv),
            stdin=slave,
            stdout=slave,
            stderr=self._err or slave,
            env=full_env,
            cwd=cwd,
            start_new_session=True,
            close_fds=True,
        )
        os.close(slave)
        self.master = master
        self._text = ""  # what was drawn (its recent part), escape sequences stripped
        self._base = 0  # characters dropped from the front of _text: positions are absolute
        self._stamps: list[tuple[int, float]] = []  # (position after a read, time of that read)
        self._cond = threading.Condition()
        self._eof = False
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        carry = ""
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        while True:
            try:
                data = os.read(self.master, 1 << 16)
            except OSError:
                data = b""
            now = time.perf_counter()
            if not data:
                with self._cond:
                    self._eof = True
                    self._cond.notify_all()
                return
            chunk = carry + decoder.decode(data)
            last = chunk.rfind("\x1b")  # an escape sequence cut by the end of this read waits
            if last >= 0 and len(chunk) - last < 256 and not _ESC.match(chunk, last):
                chunk, carry = chunk[:last], chunk[last:]
            else:
                carry = ""
            with self._cond:
                self._text += _ESC.sub("", chunk)
                self._stamps.append((self._base + len(self._text), now))
                if len(self._text) > 4 << 20:  # a flood repaints a lot: keep the tail only
                    cut = len(self._text) - (1 << 20)
                    self._text, self._base = self._text[cut:], self._base + cut
                    self._stamps = [(n, t) for n, t in self._stamps if n > self._base]
                self._cond.notify_all()

    @property
    def pos(self) -> int:
        """Where the screen output stands now; pass it to wait_for to look only at what follows."""
        with self._cond:
            return self._base + len(self._text)

    def wait_for(self, text: str, since: int = 0, timeout: float = 30.0) -> float | None:
        """The perf_counter() time the read holding `text` (after `since`) arrived; None on timeout."""
        deadline = time.perf_counter() + timeout
        with self._cond:
            while True:
                at = self._text.find(text, max(0, since - self._base))
                if at >= 0:
                    end = self._base + at + len(text)
                    return next(t for n, t in self._stamps if n >= end)
                left = deadline - time.perf_counter()
                if left <= 0 or self._eof:
                    return None
                self._cond.wait(left)

    def send(self, keys: bytes) -> float:
        t = time.perf_counter()
        os.write(self.master, keys)
        return t

    def close(self, sig: int = signal.SIGTERM, timeout: float = 20.0) -> int | None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                pass
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            code = self.proc.wait()
        self._reader.join(5)
        os.close(self.master)
        if self._err:
            self._err.close()
        return code


def peak_rss_mib(pid: int) -> float | None:
    """VmHWM (peak resident set) of a live process, from /proc; None where there is none."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None
