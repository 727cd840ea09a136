"""The loss over a run: the plot's points (thinned to MAX_POINTS), the first and the last finite
loss, and the recent losses as printed (NaN included: a NaN run must read as NaN).

Points are every `stride`-th finite loss; when MAX_POINTS is reached every other point goes and
the stride doubles, so memory stays bounded whatever the log's length. A run of step lines read in
bulk (`add_bulk`) picks the same points as one read line by line, touching only those.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from ltx_wizard.core.monitor.history_doc import MAX_POINTS, LossDoc

RECENT = 5
Point = tuple[int, float]


@dataclass
class LossTrack:
    points: list[Point] = field(default_factory=list)
    stride: int = 1
    skipped: int = 0  # finite losses since the last point
    first: Point | None = None  # the first finite loss
    last_finite: Point | None = None
    nan_step: int | None = None  # the first step printed with a NaN loss (since the last finite)
    recent: deque[Point] = field(default_factory=lambda: deque(maxlen=RECENT))

    def add(self, step: int, loss: float) -> None:
        self.recent.append((step, loss))
        if math.isnan(loss):
            if self.nan_step is None:
                self.nan_step = step
            return
        self.nan_step = None  # finite again (a resumed run from an earlier checkpoint)
        if self.first is None:
            self.first = (step, loss)
        self.last_finite = (step, loss)
        self.skipped += 1
        if self.skipped < self.stride:
            return
        self.skipped = 0
        self._append((step, loss))

    def _append(self, point: Point) -> None:
        self.points.append(point)
        if len(self.points) >= MAX_POINTS:  # thin evenly: every other point, half as often
            self.points = self.points[::2]
            self.stride *= 2

    def add_bulk(self, items: list[tuple[int, bytes]]) -> None:
        """(step, finite loss as the log spells it), in order: `add` for each, but only the
        points, the first and the last few losses are converted."""
        if not items:
            return
        if self.first is None:
            self.first = (items[0][0], float(items[0][1]))
        at, last_point = self.stride - self.skipped - 1, None
        while at < len(items):
            step, loss = items[at]
            self._append((step, float(loss)))
            last_point = at
            at += self.stride
        self.skipped = len(items) - 1 - last_point if last_point is not None else self.skipped + len(items)
        self.recent.extend((s, float(v)) for s, v in items[-RECENT:])
        self.last_finite = self.recent[-1]
        self.nan_step = None

    def rewind(self, step: int) -> None:
        """A resume from `step`: the steps after it that the stopped attempt trained are
        abandoned (the resumed run trains them again), so they leave the plot and the recent
        losses; what the loss was at the resume step stays."""
        self.points = [p for p in self.points if p[0] <= step]
        kept = [p for p in self.recent if p[0] <= step]
        self.recent = deque(kept, maxlen=RECENT)
        finite = [p for p in [*self.points, *kept] if math.isfinite(p[1])]
        self.last_finite = (
            max(finite, default=None)
            if self.last_finite is None or (self.last_finite[0] > step)
            else self.last_finite
        )
        if self.nan_step is not None and self.nan_step > step:
            self.nan_step = None
        if self.first is not None and self.first[0] > step:
            self.first = None

    # -- kept between calls (core/monitor/cursor_store.py) --------------------------------

    def to_doc(self) -> LossDoc:
        return LossDoc(
            points=list(self.points),
            stride=self.stride,
            skipped=self.skipped,
            first=self.first,
            last_finite=self.last_finite,
            nan_step=self.nan_step,
            recent=[(s, None if math.isnan(v) else v) for s, v in self.recent],
        )

    @classmethod
    def from_doc(cls, doc: LossDoc) -> LossTrack:
        """The track `to_doc` kept (checked by the codec as the cursor was read)."""
        track = cls(list(doc.points), doc.stride, doc.skipped, doc.first, doc.last_finite, doc.nan_step)
        track.recent.extend((s, math.nan if v is None else v) for s, v in doc.recent[-RECENT:])
        return track


def counted_steps(steps: list[bytes], losses: list[bytes], last: int) -> list[tuple[int, bytes]]:
    """(step, loss) of each step once, as RunLog counts step lines one by one: the first line of
    a step counts (gradient accumulation prints it on every micro-step, a second node's rank 0
    prints it again); a step at or below the last one counted (`last`) is such a repeat, and
    step 0 is no step."""
    numbers = list(map(int, steps))
    if numbers != sorted(numbers):  # nodes out of step with each other: keep the rising ones
        rising, top = [], last
        for step, loss in zip(numbers, losses):
            if step > top:
                rising.append((step, loss))
                top = step
        numbers, losses = [s for s, _ in rising], [v for _, v in rising]
    items = list(dict(zip(reversed(numbers), reversed(losses))).items())[::-1]
    floor, skip = max(last, 0), 0
    while skip < len(items) and items[skip][0] <= floor:
        skip += 1
    return items[skip:]
