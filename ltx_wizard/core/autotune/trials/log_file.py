"""`<run>/logs/trial-N.log`: a trial's whole output, stdout and stderr in arrival order.

One line per write, line-buffered (flushed at each newline), so a wizard that dies mid-trial
leaves everything the trainer said up to that moment. The file is bounded: past `max_bytes` the
middle is dropped and only the last `tail_lines` lines are kept (in memory, written at close),
because the end of a runaway trial's output is where its cause is.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections import deque
from pathlib import Path

from ltx_wizard.core.proc.child import OutputLine
from ltx_wizard.core.io.safe_fs import os_failure

MAX_BYTES = 64 * 1024 * 1024  # a 50-step trial prints well under 1 MB; this only stops a flood
TAIL_LINES = 2000


def trial_log_path(logs_dir: Path, index: int) -> Path:
    return logs_dir / f"trial-{index}.log"


class TrialLog:
    """`open()`, `write(line)` per output line, `close(footer)`; a rerun trial starts a new file.
    Each line is one os.write() on the file (no buffer left to lose if the wizard dies)."""

    def __init__(self, path: Path, *, max_bytes: int = MAX_BYTES, tail_lines: int = TAIL_LINES):
        self.path = Path(path)
        self.max_bytes = max_bytes
        self._fd: int | None = None
        self._written = 0
        self._tail: deque[str] = deque(maxlen=tail_lines)
        self._dropped = 0  # lines that fell out of the tail window
        self._failed: OSError | None = None  # a write failed (a full disk): raised at close()

    def open(self, header: str) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # O_NOFOLLOW: a link planted at logs/trial-N.log is refused, never written through
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
        self._put(f"# ltx-wizard: {header} ({time.strftime('%Y-%m-%d %H:%M:%S %Z')})\n")
        if self._failed is not None:  # before the trial starts: nothing to keep going for
            raise os_failure(self.path, self._failed)

    def write(self, line: OutputLine) -> None:
        text = line.text + (" [ltx-wizard: line cut, longer than the cap]" if line.truncated else "")
        if self._written < self.max_bytes:
            self._put(text + "\n")
            return
        if len(self._tail) == self._tail.maxlen:
            self._dropped += 1
        self._tail.append(text)

    def close(self, footer: str) -> None:
        """Ends the file; a write that failed during the trial (a full disk) is raised here, as
        one line, once the trial's processes are stopped."""
        if self._tail:
            skipped = self._dropped
            self._put(
                f"# ltx-wizard: log reached {self.max_bytes // (1024 * 1024)} MiB; "
                f"{skipped} line(s) left out, the last {len(self._tail)} follow\n"
            )
            for text in self._tail:
                self._put(text + "\n")
            self._tail.clear()
        self._put(f"# ltx-wizard: {footer}\n")
        self._close_fd()
        if self._failed is not None:
            raise os_failure(self.path, self._failed)

    def _close_fd(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)

    def _put(self, text: str) -> None:
        """One write; called from the trial's output reader, so a failure (a full disk) is kept
        for close() and the log stops, rather than raised into the reader."""
        if self._fd is None:
            return
        data = memoryview(text.encode("utf-8", "replace"))
        self._written += len(data)
        try:
            while data:
                data = data[os.write(self._fd, data) :]
        except OSError as exc:
            self._failed = exc
            self._close_fd()
