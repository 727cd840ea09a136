"""What the comparison shows outside `compare` itself (issue 44, Deliver 5): run-summary.md's section,
`status --json`'s `compare` object and the Results screen's line, each rendered from compare.json
(compare_record.py) and the user's pick (pick_record.py), never from a text written elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.compare.measured_cost import cost_lines
from ltx_wizard.core.compare.compare_record import CheckpointEntry, CompareRecord, compare_line, compare_path
from ltx_wizard.core.compare.compare_record import read_compare
from ltx_wizard.core.compare.loss_record import effect_text, loss_text
from ltx_wizard.core.compare.pick_record import PickRecord, pick_path, read_pick


@dataclass(frozen=True)
class Compared:
    """A run's comparison and its pick, read once for every view."""

    run_dir: Path
    record: CompareRecord
    pick: PickRecord | None

    @property
    def path(self) -> Path:
        return compare_path(self.run_dir)


def read_compared(run_dir: str | Path) -> Compared | None:
    """None when compare has not run; a UsageError naming the file for a damaged record."""
    record = read_compare(run_dir)
    if record is None:
        return None
    return Compared(Path(run_dir), record, read_pick(run_dir))


def read_shown(run_dir: str | Path) -> Compared | str | None:
    """For the views that go on without it (status, the Monitor, run-summary.md): a damaged
    compare.json or pick.json as its one-line refusal (naming the file and its fix), not a stop."""
    try:
        return read_compared(run_dir)
    except UsageError as exc:
        return exc.message


def _number(value: float | None, text: Callable[[float | None], str]) -> str:
    return "-" if value is None else text(value)


def _health(entry: CheckpointEntry) -> str:
    return "ok" if entry.health.ok else "; ".join(entry.health.problems).replace("|", "/")


def pick_text(pick: PickRecord | None) -> str:
    """'step 1,400, picked 2026-12-07T01:00:00+00:00 (compare recommended step 1,200)', or the way to pick."""
    if pick is None:
        return "none yet (`ltx-wizard pick RUN STEP`, or k on the Results screen)"
    rec = pick.recommended_step
    said = "no step" if rec is None else ("this step" if rec == pick.step else f"step {rec:,}")
    return f"step {pick.step:,}, picked {pick.time} (compare recommended {said} then)"


def summary_lines(compared: Compared) -> list[str]:
    """run-summary.md's section: each compared checkpoint's numbers, the recommendation, the pick."""
    record = compared.record
    lines = ["## Which checkpoint (compare)", "", f"From `{compared.path}`.", ""]
    lines += ["| Step | Held-out loss | Train loss | Effect | Health |", "|---:|---:|---:|---:|---|"]
    for c in record.checkpoints:
        held, train = _number(c.held_out_loss, loss_text), _number(c.train_loss, loss_text)
        lines.append(f"| {c.step:,} | {held} | {train} | {_number(c.effect, effect_text)} | {_health(c)} |")
    lines.append("")
    if record.held_out_note is not None:
        lines += [f"No held-out loss: {record.held_out_note}.", ""]
    rec = record.recommended
    said = f"step {rec.step:,}" if rec.step is not None else "none"
    lines += [f"**Recommended:** {said}. Why: {rec.reason}", ""]
    lines += [f"**Picked:** {pick_text(compared.pick)}", ""]
    if record.cost is not None:  # measured after it ran, beside plan.md's estimate
        lines += [f"- {line.removeprefix('cost: ')}" for line in cost_lines(record.cost)] + [""]
    return lines


def status_object(compared: Compared | str | None) -> dict[str, Any] | None:
    """`status --json`'s `compare`: the recommendation, the pick and the record's path; None before
    compare; {"error": the refusal} for a damaged record."""
    if compared is None:
        return None
    if isinstance(compared, str):
        return {"error": compared}
    rec, pick = compared.record.recommended, compared.pick
    return {
        "recommended": {"step": rec.step, "reason": rec.reason},
        "pick": None
        if pick is None
        else {
            "step": pick.step,
            "path": pick.path,
            "time": pick.time,
            "recommended_step": pick.recommended_step,
        },
        "path": str(compared.path),
        "pick_path": str(pick_path(compared.run_dir)) if pick is not None else None,
    }


def checkpoint_row(entry: CheckpointEntry, record: CompareRecord, pick: PickRecord | None) -> str:
    """One compared checkpoint in a line: its numbers, health, and whether it is recommended or picked."""
    marks = [
        m
        for m, on in (("recommended", record.recommended.step), ("picked", pick and pick.step))
        if on == entry.step
    ]
    health = "ok" if entry.health.ok else f"{len(entry.health.problems)} problem(s)"
    return (
        f"step {entry.step:,}: held-out {_number(entry.held_out_loss, loss_text)}, train "
        f"{_number(entry.train_loss, loss_text)}, effect {_number(entry.effect, effect_text)}, {health}"
        + (f"  [{', '.join(marks)}]" if marks else "")
    )


def results_line(compared: Compared) -> str:
    """The Results screen's line: the comparison's one line and the pick."""
    line = compare_line(compared.record)
    pick = compared.pick
    return f"{line}. Picked: {'none yet (k picks)' if pick is None else f'step {pick.step:,}'}"
