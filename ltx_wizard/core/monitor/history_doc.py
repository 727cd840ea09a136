"""The history a status cursor keeps (cursor_store.py), as typed values: what RunLog's history
scan built, each part beside the class that builds it (LossTrack, Attempt, StartupLines). Decoded
strictly by the run folder's codec, so a restore needs no checks of its own: a count is a
non-negative whole number, a text is short, a loss is a finite number (JSON has no NaN, and the
decoder refuses a number out of range), and no part holds a key the writer does not write.
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

MAX_POINTS = 2048  # loss points kept for the plot (thinned evenly beyond that)
Count = Annotated[int, Meta(ge=0, le=2**63 - 1)]
Text = Annotated[str, Meta(max_length=4096)]
Point = tuple[Count, float]


class LossDoc(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    points: Annotated[list[Point], Meta(max_length=MAX_POINTS)]
    stride: Count
    skipped: Count
    first: Point | None
    last_finite: Point | None
    nan_step: Count | None
    recent: list[tuple[Count, float | None]]  # None: a NaN loss


class AttemptDoc(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    started: Text | None
    pid: Count | None
    resumed_from: Count | None
    last_step: Annotated[int, Meta(ge=-1, le=2**63 - 1)]
    validation_steps: list[Count]
    nan_step: Count | None
    minutes: float | None
    projection: Point | None
    launch_error: Text | None = None  # absent in a cursor written before it was kept


class StartupDoc(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    wandb_url: Text | None
    attention: Text | None
    pending: list[Text] | None


class HistoryDoc(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    loss: LossDoc
    steady: list[float]
    step: Count | None
    total: Count | None
    checkpoints: list[tuple[Count, Text]]
    attempt: AttemptDoc
    attempts: Count
    earlier_minutes: list[float | None]
    startup: StartupDoc
    lines: Count
    busy_step: Count | None
    window_end: Count
