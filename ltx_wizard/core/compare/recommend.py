"""Which kept checkpoint to use, and why (issue 44, Deliver 5): one recommendation from each
checkpoint's held-out loss, training loss, effect against the base model and health verdict, with a
one-line reason that shows its basis and names the checkpoints it passed over.

The rules, in order (tests/core/compare/test_recommend.py holds one test each):
1. Never an unhealthy checkpoint: a health problem, or a loss or effect that is not finite (NaN,
   Inf), leaves it out, so a NaN run is never recommended. With no healthy checkpoint the step is
   None and the reason names each one's first problem.
2. An effect under EFFECT_FLOOR (1 % mean relative change of the prediction against base, below
   Phosphene #62's 3.77 % "does almost nothing") "changes almost nothing": such a checkpoint is not
   recommended over one that has an effect; if every healthy one is under the floor, the pick says so.
3. With held-out losses: the lowest held-out loss among the remaining ones; losses equal to the
   printed digits (loss_record.py's LOSS_DECIMALS) are a tie, and a tie goes to the earlier step.
   The reason gives the held-out loss, the training loss and their gap, and the effect, and names
   the healthy checkpoints that have no held-out loss.
4. Over-fitting: when the held-out loss rises at each of the last OVERFIT_RISES kept checkpoints (or
   more) while the training loss does not rise over the same span (it falls, or holds to the printed
   digits: the gap between them widens either way), the reason names the step after which the
   held-out loss rises. A training loss rising too is a run getting worse, not over-fitting.
5. Without held-out losses (held_out_note says why, e.g. "no clips were held out"): the latest healthy
   checkpoint with an effect, or the latest healthy one where no effect was measured; the reason says
   it rests on that, and gives the note.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ltx_wizard.core.compare.loss_record import LOSS_DECIMALS, effect_text, loss_text

EFFECT_FLOOR = 0.01  # a fraction: 1 % against base
OVERFIT_RISES = 2  # rises in a row at the end: one alone may be the sampling's noise


@dataclass(frozen=True)
class CheckpointResult:
    step: int  # the base model is not a checkpoint
    path: str
    held_out_loss: float | None  # None: no held-out clips (see held_out_note) or not computed
    train_loss: float | None
    effect: float | None  # a fraction, 0.14 = 14 % against base
    health_ok: bool
    problems: tuple[str, ...]  # the health verdict's sentences


@dataclass(frozen=True)
class Recommendation:
    step: int | None  # None: nothing can be recommended (all unhealthy), said in reason
    reason: str  # one line


def _finite(value: float | None) -> bool:
    return value is None or math.isfinite(value)


def _healthy(result: CheckpointResult) -> bool:
    values = (result.held_out_loss, result.train_loss, result.effect)
    return result.health_ok and all(_finite(v) for v in values)


def _tiny(result: CheckpointResult) -> bool:
    return result.effect is not None and result.effect < EFFECT_FLOOR


def _step(step: int) -> str:
    return f"step {step:,}"


def _printed(loss: float) -> float:
    """The loss as printed: differences past those digits are not told apart."""
    return round(loss, LOSS_DECIMALS)


def _first_problem(result: CheckpointResult) -> str:
    if result.problems:
        return result.problems[0]
    return "a loss or its effect is not finite"


def _losses(result: CheckpointResult) -> str:
    """'0.1132; train 0.1021, gap +0.0111', or the held-out loss alone."""
    held, train = result.held_out_loss, result.train_loss
    if held is None:
        return "no held-out loss" if train is None else f"train {loss_text(train)}"
    if train is None:
        return loss_text(held)
    return f"{loss_text(held)}; train {loss_text(train)}, gap {held - train:+.{LOSS_DECIMALS}f}"


def _effect(result: CheckpointResult) -> str:
    if result.effect is None:
        return "effect not measured"
    text = f"effect {effect_text(result.effect)} against base"
    return f"{text}, changes almost nothing (under {effect_text(EFFECT_FLOOR)})" if _tiny(result) else text


def overfit_step(results: Sequence[CheckpointResult]) -> int | None:
    """The step after which the held-out loss rises to the last kept checkpoint (at least
    OVERFIT_RISES rises in a row, on the printed digits) while the training loss does not rise; None
    else."""
    both = sorted(
        (r for r in results if _healthy(r) and r.held_out_loss is not None and r.train_loss is not None),
        key=lambda r: r.step,
    )
    start = len(both) - 1
    while start > 0 and _printed(both[start].held_out_loss or 0) > _printed(
        both[start - 1].held_out_loss or 0
    ):
        start -= 1
    if len(both) - 1 - start < OVERFIT_RISES:
        return None
    turn, last = both[start], both[-1]
    holds = _printed(last.train_loss or 0) <= _printed(turn.train_loss or 0)
    return turn.step if holds else None


def _passed_over(results: Sequence[CheckpointResult], pick: CheckpointResult) -> list[str]:
    """What the reason says of the others: a lower loss left for a tiny effect, healthy ones without
    a held-out loss when the pick rests on one, the unhealthy ones."""
    said = []
    held = pick.held_out_loss
    for other in results:
        loss = other.held_out_loss
        if held is None or not _healthy(other) or other is pick:
            continue
        if loss is None:
            said.append(f"{_step(other.step)} has no held-out loss")
        elif _tiny(other) and not _tiny(pick) and _printed(loss) < _printed(held):
            said.append(
                f"{_step(other.step)} has a lower held-out loss ({loss_text(loss)}) "
                f"but changes almost nothing (effect {effect_text(other.effect)})"
            )
    unhealthy = [r for r in results if not _healthy(r)]
    if unhealthy:
        steps = ", ".join(_step(r.step) for r in unhealthy)
        said.append(f"left out as unhealthy: {steps} ({_first_problem(unhealthy[0])})")
    return said


def _by_loss(candidates: list[CheckpointResult]) -> tuple[CheckpointResult, str]:
    pick = min(candidates, key=lambda r: (_printed(r.held_out_loss or 0), r.step))
    return pick, f"{_step(pick.step)}: lowest held-out loss ({_losses(pick)}); {_effect(pick)}"


def _without_loss(candidates: list[CheckpointResult], note: str | None) -> tuple[CheckpointResult, str]:
    pick = max(candidates, key=lambda r: r.step)
    effect = pick.effect is not None and not _tiny(pick)
    basis = "latest healthy checkpoint" + (" with an effect" if effect else "")
    train = "" if pick.train_loss is None else f"; train loss {loss_text(pick.train_loss)}"
    why = note or "not computed"
    return pick, f"{_step(pick.step)}: {basis} ({_effect(pick)}{train}); no held-out loss: {why}"


def recommend(results: Sequence[CheckpointResult], held_out_note: str | None) -> Recommendation:
    """The checkpoint to use and its one-line reason, by the module's rules."""
    ordered = sorted(results, key=lambda r: r.step)
    healthy = [r for r in ordered if _healthy(r)]
    if not healthy:
        if not ordered:
            return Recommendation(None, "no checkpoint to compare")
        each = "; ".join(f"{_step(r.step)}: {_first_problem(r)}" for r in ordered)
        which = "the one checkpoint is" if len(ordered) == 1 else f"all {len(ordered)} are"
        return Recommendation(None, f"no checkpoint can be recommended: {which} unhealthy ({each})")
    candidates = [r for r in healthy if not _tiny(r)] or healthy
    with_loss = [r for r in candidates if r.held_out_loss is not None]
    pick, reason = _by_loss(with_loss) if with_loss else _without_loss(candidates, held_out_note)
    turn = overfit_step(ordered)
    parts = [reason]
    if turn is not None:
        parts.append(f"held-out loss rising after {_step(turn)} (over-fitting)")
    parts += _passed_over(ordered, pick)
    return Recommendation(pick.step, "; ".join(parts))
