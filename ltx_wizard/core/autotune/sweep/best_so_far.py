"""Cancel keeps the best so far: config.yaml gets it, and a resume still starts from the plan.

A cancelled autotune patches its best result into config.yaml through the winner's own path
(finishing.py, as the winner). The trials, though, are changes against the *planned* config, so the
planned text is kept beside the trials (overfit/planned-config.json, with the text written over
it): a resume reads the plan from there while config.yaml still holds what the cancel wrote. A
config.yaml edited by hand since then is the user's new plan, and is read as it is.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from ltx_wizard.core.io.bounded import CONFIG_MAX_BYTES, read_text
from ltx_wizard.core.io.workspace import RunFolder, atomic_write_text

if TYPE_CHECKING:
    from ltx_wizard.core.tuning.schedule import Tuner

NAME = "planned-config.json"


def _record(folder: RunFolder) -> Path:
    return folder.overfit / NAME


def remember(folder: RunFolder, planned: str, written: str) -> None:
    """Before config.yaml is patched on a cancel: the plan it came from, and what replaces it."""
    atomic_write_text(_record(folder), json.dumps({"planned": planned, "written": written}), root=folder.root)


def planned_text(folder: RunFolder, current: str) -> str | None:
    """The planned config when config.yaml still holds what a cancel wrote; None otherwise."""
    path = _record(folder)
    if not path.is_file() or path.is_symlink():
        return None
    try:
        record = json.loads(read_text(path, what="planned config record", limit=2 * CONFIG_MAX_BYTES))
    except Exception:  # a damaged or unreadable record: config.yaml is the plan
        return None
    if not isinstance(record, dict) or record.get("written") != current:
        return None
    planned = record.get("planned")
    return planned if isinstance(planned, str) else None


def keep_on_cancel(
    folder: RunFolder, tuner: Tuner, planned: str, patch: Callable[[Tuner, str], bool]
) -> bool:
    """Patch the best so far with `patch` (the winner's path); True when config.yaml changed."""
    if not patch(tuner, planned):
        return False
    remember(folder, planned, read_text(folder.config, what="config", limit=CONFIG_MAX_BYTES))
    return True
