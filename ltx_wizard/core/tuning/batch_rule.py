"""The batch lever keeps the schedule the user approved (pure, no I/O).

mirrors ltx_trainer/trainer.py LtxvTrainer.train: `optimization.steps` counts optimizer steps; the
loop runs `steps x gradient_accumulation_steps` micro-batches of `batch_size` on each process, so
one step sees batch x accumulation x processes samples (the effective batch) and the run sees
steps x that. A larger batch keeps both only when accumulation goes down by the same factor: it
cannot go below 1 and must divide evenly. Otherwise the trial is not run, unless the user allowed
a batch change (--allow-batch-change, the Summary screen's checkbox): then it runs, and a win
rescales `steps` so that the samples seen stay as planned.
"""

from __future__ import annotations

from dataclasses import dataclass

from ltx_wizard.core.tuning.headroom import TrainSettings

ALLOW_FLAG = "--allow-batch-change"


@dataclass(frozen=True)
class BatchMove:
    changes: dict[str, object]  # batch size and accumulation for the trial
    label: str  # the trial's change, as the table and autotune.log show it
    refusal: str = ""  # why it is not run ('' when it is)


def effective(s: TrainSettings) -> int:
    """Samples per optimizer step on one process (the GPUs multiply both sides alike)."""
    return s.batch_size * s.gradient_accumulation_steps


def batch_move(s: TrainSettings, size: int, allow_change: bool) -> BatchMove:
    """Batch `size` with accumulation lowered to keep the effective batch, when it can be."""
    planned = effective(s)
    label = f"batch_size {s.batch_size} -> {size}"
    if planned % size == 0:  # planned >= size here, so the accumulation stays >= 1
        accum = planned // size
        if accum != s.gradient_accumulation_steps:
            label += f", grad accumulation {s.gradient_accumulation_steps} -> {accum}"
        return BatchMove(_changes(size, accum), label)
    accum = max(1, planned // size)
    if accum != s.gradient_accumulation_steps:
        label += f", grad accumulation {s.gradient_accumulation_steps} -> {accum}"
    label += f", effective batch {planned} -> {size * accum}"
    why = (
        "gradient accumulation is already 1 and cannot go lower"
        if s.gradient_accumulation_steps == 1
        else f"{planned} samples per step do not divide into batches of {size}"
    )
    refusal = (
        ""
        if allow_change
        else (
            f"would change the effective batch {planned} -> {size * accum} per GPU ({why}), and so "
            f"the schedule you approved; {ALLOW_FLAG} runs it and rescales optimization.steps"
        )
    )
    return BatchMove(_changes(size, accum), label, refusal)


def _changes(size: int, accum: int) -> dict[str, object]:
    return {"optimization.batch_size": size, "optimization.gradient_accumulation_steps": accum}


def rescaled_steps(steps: int, before: TrainSettings, after: TrainSettings) -> int:
    """`steps` at the new effective batch so that steps x effective batch stays as planned."""
    old, new = effective(before), effective(after)
    if old == new:
        return steps
    return max(1, round(steps * old / new))
