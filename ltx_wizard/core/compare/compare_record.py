"""The comparison's record, RUN/outputs/compare/compare.json: each checkpoint compared (its held-out
and training loss, its effect against base, its health) and the recommendation (recommend.py), read
back through the run folder's codec (one declaration, versioned, unknown fields refused naming the
file). `compare --json` prints it as issue 44 Deliver 6 names its keys (`compare_json`), and
run-summary.md and `status` show it in one line (`compare_line`).

A number that is not finite is written as null (JSON has none): the health problems say why.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec

from ltx_wizard.core.compare.measured_cost import MeasuredCost
from ltx_wizard.core.compare.recommend import CheckpointResult, Recommendation
from ltx_wizard.core.io import run_folder
from ltx_wizard.core.io.run_codec import declare

COMPARE_VERSION = 1


class Health(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    ok: bool
    problems: tuple[str, ...]


class CheckpointEntry(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    step: int
    path: str
    held_out_loss: float | None
    train_loss: float | None
    effect: float | None
    health: Health


class Recommended(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    step: int | None
    reason: str


class CompareRecord(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    version: int = COMPARE_VERSION
    held_out_note: str | None  # why there is no held-out loss; None when there is one
    checkpoints: tuple[CheckpointEntry, ...]
    recommended: Recommended
    cost: MeasuredCost | None = None  # measured_cost.py: what it cost, beside plan.md's estimate

    def __post_init__(self) -> None:
        steps = [c.step for c in self.checkpoints]
        if len(set(steps)) != len(steps):
            raise ValueError(f"a step is listed twice ({', '.join(map(str, steps))})")
        if any(c.health.ok == bool(c.health.problems) for c in self.checkpoints):
            raise ValueError("a checkpoint's health is ok with problems, or not ok without one")
        pick = self.recommended.step
        if pick is not None and not any(c.step == pick and c.health.ok for c in self.checkpoints):
            raise ValueError(f"the recommended step {pick} is not a healthy checkpoint of the record")


COMPARE_FILE = declare(run_folder.COMPARE_RECORD, CompareRecord, version=COMPARE_VERSION)


def _number(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def _entry(result: CheckpointResult) -> CheckpointEntry:
    return CheckpointEntry(
        step=result.step,
        path=result.path,
        held_out_loss=_number(result.held_out_loss),
        train_loss=_number(result.train_loss),
        effect=_number(result.effect),
        health=Health(ok=result.health_ok, problems=result.problems),
    )


def compare_record(
    results: Sequence[CheckpointResult],
    held_out_note: str | None,
    recommendation: Recommendation,
    cost: MeasuredCost | None = None,
) -> CompareRecord:
    """The record of a comparison, its checkpoints by step."""
    entries = tuple(_entry(r) for r in sorted(results, key=lambda r: r.step))
    return CompareRecord(
        held_out_note=held_out_note,
        checkpoints=entries,
        recommended=Recommended(step=recommendation.step, reason=recommendation.reason),
        cost=cost,
    )


def results_of(record: CompareRecord) -> tuple[CheckpointResult, ...]:
    """The record's checkpoints as recommend() takes them (to recommend again, or show them)."""
    return tuple(
        CheckpointResult(
            c.step, c.path, c.held_out_loss, c.train_loss, c.effect, c.health.ok, c.health.problems
        )
        for c in record.checkpoints
    )


def compare_path(run_dir: str | Path) -> Path:
    return run_folder.COMPARE_RECORD.path(run_dir)


def write_compare(run_dir: str | Path, record: CompareRecord) -> Path:
    return COMPARE_FILE.write(run_dir, record)


def read_compare(run_dir: str | Path) -> CompareRecord | None:
    """The record, None before the first comparison; a UsageError naming the file for a damaged one."""
    return COMPARE_FILE.read(run_dir)


def compare_json(record: CompareRecord) -> dict[str, Any]:
    """`compare --json`'s object: `checkpoints` (step, path, held_out_loss, train_loss, effect,
    health {ok, problems}), `recommended` (step, reason), `held_out_note` and `cost` (measured,
    beside plan.md's estimate; null in a record of before it); no version key."""
    doc: dict[str, Any] = msgspec.to_builtins(record)
    return {key: doc.get(key) for key in ("checkpoints", "recommended", "held_out_note", "cost")}


def compare_line(record: CompareRecord) -> str:
    """One line for run-summary.md and `status`: the pick of how many, and its reason."""
    count = len(record.checkpoints)
    compared = f"{count} checkpoint{'s' if count != 1 else ''} compared"
    if record.recommended.step is None:
        return f"{compared}: {record.recommended.reason}"
    return f"{compared}, recommended {record.recommended.reason}"
