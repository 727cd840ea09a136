"""Seconds per step and the time left, from two sources the log gives, each saying what it counts.

- steady: the median `Time/Step` of recent step lines whose step saved no checkpoint and ran no
  validation (trainer.py LtxvTrainer.train times the whole optimizer step, a save or a validation
  pass at that step included). It leaves those pauses out. When the checkpoint (or validation)
  interval divides 20, every printed step is such a step: there is no steady step at all.
- the trainer's projection: every step line's `Total Time: {h}h {m}m` is elapsed / steps done x
  steps this launch runs (trainer.py LtxvTrainer.train, the fallback logging), elapsed counted
  from the start of train(): validation passes and checkpoint saves included, the first
  validation and the optimizer set-up too. It is printed in whole minutes (rounded down), so it is
  taken as the middle of its minute and preferred only once that minute is a small share of it.
- before the first step line (the load, the first validation): autotune's duration estimate
  (core/tuning/duration.py, the one plan.md states) for what this launch has left, less the
  time the process has run (a simulated run's compressed clock is not subtracted).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from ltx_wizard.core.monitor.run_log import RunLog
from ltx_wizard.core.tuning.duration import Duration

MIN_STEADY = 2  # printed step times needed before the steady pace is given
PROJECTION_TRUSTED_S = 600.0  # from 10 minutes on, the minute it is rounded to is under 10 %
STEADY = "steady"
TRAINER = "trainer"
ESTIMATE = "estimate"


@dataclass(frozen=True)
class Pace:
    s_per_step: float | None
    s_per_step_kind: str | None  # STEADY or TRAINER
    eta_s: float | None
    eta_kind: str | None


def _projected(log: RunLog, total: int | None) -> tuple[float, int, int] | None:
    """(the trainer's projected seconds for this launch, its first step, its steps) or None."""
    attempt = log.attempt
    if attempt.projection is None or not total:
        return None
    step, seconds = attempt.projection
    initial = attempt.initial_step
    steps = total - initial
    if steps <= 0 or step <= initial:
        return None
    return seconds + 30.0, initial, steps  # "Xh Ym" is rounded down to the minute


def pace(log: RunLog, total: int | None, live: bool) -> Pace:
    steady = statistics.median(log.steady) if len(log.steady) >= MIN_STEADY else None
    projected = _projected(log, total)
    per_step, per_kind = (steady, STEADY) if steady is not None else (None, None)
    if per_step is None and projected is not None:
        per_step, per_kind = projected[0] / projected[2], TRAINER
    eta = eta_kind = None
    if live and log.step is not None and total:
        left = max(0, total - log.step)
        if projected is not None and (steady is None or projected[0] >= PROJECTION_TRUSTED_S):
            seconds, initial, steps = projected
            eta, eta_kind = seconds * left / steps, TRAINER
        elif steady is not None:
            eta, eta_kind = steady * left, STEADY
    return Pace(per_step, per_kind, eta, eta_kind)


def estimated_eta(
    duration: Duration, initial: int, intervals: tuple[int | None, int | None], ran_s: float | None
) -> float:
    """Seconds left of a launch from `initial` before any step line: the estimate of that launch
    (validation and checkpoint intervals as config.yaml has them) less what it has run."""
    left = duration.remaining_s(initial, *intervals)
    return max(0.0, left - (ran_s or 0.0))
