"""`status RUN --watch --notify [--notify-url URL]`: the ending of the watched run, sent once.

Each refresh hands the status here: an ended run (or a stalled one) is an ending
(core/monitor/notify_ending.py); the first watcher to see it records it in logs/notified.json and
writes the notification's escape sequences to the terminal and/or POSTs it; a watcher started
again after that only says it was sent. The watch then exits with the cause's code.
"""

from __future__ import annotations

import os
import sys
import threading

from pathlib import Path

from ltx_wizard.core.monitor.notify_ending import EXIT_CODES, Ending, StallWatch, run_ending
from ltx_wizard.core.monitor.status import RunStatus

# The watch refreshes at most this far apart while it notifies: the trainer's exit is seen within
# one interval, a refresh (a few tenths of a second) later, well inside the 30 s promised.
NOTIFY_POLL_MAX_S = 10.0


def _say(line: str) -> None:
    print(f"ltx-wizard: {line}", file=sys.stderr, flush=True)


class Notifier:
    def __init__(self, run_dir: Path, terminal: bool, url: str | None) -> None:
        self.run_dir, self.terminal, self.url = run_dir, terminal, url
        self.stall = StallWatch()
        self.posting: threading.Thread | None = None

    def ending(self, status: RunStatus) -> Ending | None:
        return run_ending(status) or self.stall.observe(status)

    def send(self, ending: Ending, as_json: bool) -> int:
        """Notify (unless an earlier watcher did), say what was done, and the exit code."""
        from ltx_wizard.core.monitor.notify_record import claim, sent_before

        if not claim(self.run_dir, ending):
            before = sent_before(self.run_dir, ending)
            when = f" at {before.at}" if before is not None else ""
            self._line(f"Already notified{when}: {ending.text}", as_json)
            return EXIT_CODES[ending.cause]
        if self.terminal:
            self._to_terminal(ending)
        if self.url is not None:
            from ltx_wizard.core.monitor.notify_post import TIMEOUT_S, post_in_thread

            self.posting = post_in_thread(self.url, ending, _say)
            self.posting.join(TIMEOUT_S + 2.0)  # the POST has its own timeout; never hang here
        self._line(f"Notified: {ending.text}", as_json)
        return EXIT_CODES[ending.cause]

    def _to_terminal(self, ending: Ending) -> None:
        from ltx_wizard.core.monitor.notify_escape import sequences, to_terminal

        why = to_terminal(sequences(ending.text, os.environ), sys.stdout)
        if why is not None:
            _say(f"--notify: {why}")

    @staticmethod
    def _line(text: str, as_json: bool) -> None:
        if not as_json:  # --json keeps stdout one status object per line; the exit code says it
            print(text, flush=True)
