"""`<run>/logs/trial-N.log`: a trial's whole output, stdout and stderr in arrival order.

One line per write, line-buffered (flushed at each newline), so a wizard that dies mid-trial
leaves everything the trainer said up to that moment. The file is bounded: past `max_bytes` the
middle is dropped and only the last `tail_lines` lines are kept (in memory, written at close),
because the end of a runaway trial's output is where its cause is.
"""

from __future__ import annotations

import os
import time
from typing import TextIO
from collections import deque
from pathlib import Path

from ltx_wizard.core.autotune.process import OutputLine

MAX_BYTES = 64 * 1024 * 1024  # a 50-step trial prints well under 1 MB; this only stops a flood
TAIL_LINES = 2000


def trial_log_path(logs_dir: Path, index: int) -> Path:
    return logs_dir / f"trial-{index}.log"


class TrialLog:
    """`open()`, `write(line)` per output line, `close(footer)`; a rerun trial starts a new file."""

    def __init__(self, path: Path, *, max_bytes: int = MAX_BYTES, tail_lines: int = TAIL_LINES):
        self.path = Path(path)
        self.max_bytes = max_bytes
        self._handle: TextIO | None = None
        self._written = 0
        self._tail: deque[str] = deque(maxlen=tail_lines)
        self._dropped = 0  # lines that fell out of the tail window

    def open(self, header: str) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # O_NOFOLLOW: a link planted at logs/trial-N.log is refused, never written through
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
        self._handle = os.fdopen(fd, "w", encoding="utf-8", errors="replace", buffering=1)
        self._put(f"# ltx-wizard: {header} ({time.strftime('%Y-%m-%d %H:%M:%S %Z')})\n")

    def write(self, line: OutputLine) -> None:
        text = line.text + (" [ltx-wizard: line cut, longer than the cap]" if line.truncated else "")
        if self._written < self.max_bytes:
            self._put(text + "\n")
            return
        if len(self._tail) == self._tail.maxlen:
            self._dropped += 1
        self._tail.append(text)

    def close(self, footer: str) -> None:
        if self._handle is None:
            return
        if self._tail:
            skipped = self._dropped
            self._put(f"# ltx-wizard: log reached {self.max_bytes // (1024 * 1024)} MiB; "
                      f"{skipped} line(s) left out, the last {len(self._tail)} follow\n")
            for text in self._tail:
                self._handle.write(text + "\n")
            self._tail.clear()
        self._put(f"# ltx-wizard: {footer}\n")
        self._handle.close()
        self._handle = None

    def _put(self, text: str) -> None:
        if self._handle is not None:
            self._handle.write(text)
            self._written += len(text.encode("utf-8", "replace"))
