"""The user's pick among the compared checkpoints (issue 44, Deliver 5: "The user picks; run-summary.md's
render line uses the pick"): RUN/outputs/compare/pick.json, read and written through the run folder's
codec. It keeps the step picked, its file, when, and what compare recommended at that time, so a
later comparison that recommends another step does not silently change what the pick meant.

Only a kept, compared checkpoint can be picked: its step is in compare.json and its file is still
on disk (the trainer's keep_last_n may have removed it since). `ltx-wizard pick RUN STEP` and the
Results screen both call `pick`.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import msgspec

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.compare.compare_record import CompareRecord, CheckpointEntry, read_compare
from ltx_wizard.core.io import run_folder
from ltx_wizard.core.io.run_codec import declare

PICK_VERSION = 1


class PickRecord(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    version: int = PICK_VERSION
    step: int
    path: str  # the checkpoint's file, as compare.json names it
    time: str  # when it was picked, ISO 8601 in UTC
    recommended_step: int | None  # compare's recommendation when the pick was made (None: none)


PICK_FILE = declare(run_folder.COMPARE_PICK, PickRecord, version=PICK_VERSION)


def read_pick(run_dir: str | Path) -> PickRecord | None:
    """The pick, None before one; a UsageError naming the file for a damaged one."""
    return PICK_FILE.read(run_dir)


def pick_path(run_dir: str | Path) -> Path:
    return run_folder.COMPARE_PICK.path(run_dir)


def _steps(record: CompareRecord) -> str:
    return ", ".join(f"{c.step:,}" for c in record.checkpoints) or "none"


def pickable(record: CompareRecord | None, step: int, run_dir: str | Path) -> CheckpointEntry:
    """The compared checkpoint of `step`; a UsageError (exit 2) saying why it cannot be picked."""
    if record is None:
        raise UsageError(
            f"{run_dir} has no comparison yet: run `ltx-wizard compare {run_dir}` first, then pick one "
            "of the checkpoints it compared"
        )
    entry = next((c for c in record.checkpoints if c.step == step), None)
    if entry is None:
        raise UsageError(
            f"step {step:,} is not a compared checkpoint of {run_dir}: pick one of {_steps(record)}"
        )
    if not Path(entry.path).is_file():
        raise UsageError(
            f"the checkpoint of step {step:,} is no longer kept ({entry.path} is gone): pick one of the "
            "others, or run compare again"
        )
    return entry


def pick(run_dir: str | Path, step: int, *, now: datetime | None = None) -> PickRecord:
    """Record `step` as the user's pick (pick.json, atomically); UsageError when it cannot be."""
    record = read_compare(run_dir)
    entry = pickable(record, step, run_dir)
    assert record is not None  # pickable refused a missing one
    when = (now or datetime.now(timezone.utc)).astimezone(timezone.utc)
    picked = PickRecord(
        step=entry.step,
        path=entry.path,
        time=when.isoformat(timespec="seconds"),
        recommended_step=record.recommended.step,
    )
    PICK_FILE.write(run_dir, picked)
    return picked
