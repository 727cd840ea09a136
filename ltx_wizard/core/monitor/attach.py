"""Whether this wizard may act on a run it watches (issue 45): it takes the run's lock
(core/io/workspace.py run_lock) for as long as its Monitor is open; when another live wizard
holds the lock, this one is read-only and names the holder (pid, start time). The lock decides;
`ltx-wizard monitor RUN --read-only` only forces it. A read-only wizard shows everything and
offers no Stop, Resume, Apply fix or Compare.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.io.pid_records import PidRecord
from ltx_wizard.core.io.workspace import lock_holder, run_lock
from ltx_wizard.core.proc.table import start_wall_time

ACTIONS = ("stop", "resume", "fix", "compare")  # what a read-only Monitor never offers (each changes the run)


@dataclass
class Attachment:
    run_dir: Path
    read_only: bool
    holder: PidRecord | None = None  # the other wizard holding the lock
    why: str | None = None  # forced, or the lock could not be taken for another reason
    _stack: contextlib.ExitStack = field(default_factory=contextlib.ExitStack)

    def line(self) -> str:
        """What the Monitor says of it; empty when this wizard holds the run."""
        if not self.read_only:
            return ""
        if self.holder is not None and self.holder.pid is not None:
            started = start_wall_time(self.holder.started)
            when = time.strftime(", started %Y-%m-%d %H:%M:%S", time.localtime(started)) if started else ""
            who = f"another ltx-wizard holds this run (pid {self.holder.pid}{when})"
        else:
            who = self.why or "read-only"
        return f"Read-only: {who}. Stop, Resume, Apply fix and Compare are not offered here."

    def refuses(self, action: str) -> bool:
        return self.read_only and action in ACTIONS

    def release(self) -> None:
        self._stack.close()


def attach(run_dir: Path, *, read_only: bool = False) -> Attachment:
    """Hold the run's lock (released by `release()`), or say why this wizard is read-only."""
    if read_only:
        return Attachment(run_dir, True, lock_holder(run_dir), why="opened with --read-only")
    attachment = Attachment(run_dir, False)
    try:
        attachment._stack.enter_context(run_lock(run_dir))
    except WizardError as exc:
        return Attachment(run_dir, True, lock_holder(run_dir), why=exc.message)
    return attachment
