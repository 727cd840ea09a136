"""One autotune session's guards, on top of core/proc (tags, watchdog, stop rule): every trial
of a session carries the session's tag (core/proc/tags.py), so

- its watchdog (core/proc/reaper.py) stops every trial process if the wizard dies, even by SIGKILL;
- a sweep after each trial stops tagged stragglers the group stop missed;
- a record in the run folder (overfit/.trial-session.json) makes a resume refuse to start trial 1
  beside a previous session's trainer that is still running.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Iterator

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.io.bounded import read_bytes
from ltx_wizard.core.io.safe_fs import remove_quietly, write_text
from ltx_wizard.core.proc.reaper import Reaper, stop_tagged
from ltx_wizard.core.proc.tags import new_tag, tagged_pids

RECORD_NAME = ".trial-session.json"


@contextlib.contextmanager
def guarded_session(overfit: Path, root: Path) -> Iterator[str]:
    """One autotune session: refuse while an earlier one's trials live, then yield the session
    tag every trial is started with; on the way out stop stragglers and end the watchdog."""
    refuse_if_still_running(overfit)
    tag = new_tag()
    reaper = Reaper(tag)
    try:
        record_session(overfit, root, tag)
        yield tag
    finally:
        stop_tagged(tag, grace_s=2.0)
        reaper.close()
        clear_session(overfit)


def record_session(overfit: Path, root: Path, tag: str) -> None:
    write_text(overfit / RECORD_NAME, json.dumps({"tag": tag, "wizard_pid": os.getpid()}) + "\n", root=root)


def clear_session(overfit: Path) -> None:
    remove_quietly([overfit / RECORD_NAME])


def refuse_if_still_running(overfit: Path) -> None:
    """UsageError when a previous session's trial processes are still alive."""
    try:
        tag = str(json.loads(read_bytes(overfit / RECORD_NAME, what="trial record", limit=4096))["tag"])
    except (UsageError, ValueError, KeyError, TypeError):
        return
    alive = tagged_pids(tag)
    if alive:
        shown = " ".join(map(str, alive[:8]))
        raise UsageError(
            f"trial processes of an earlier autotune still run (pid {shown}): stop them "
            f"(kill {shown}) or wait for them to end, then resume"
        )
