"""What the comparison cost, measured after it ran, beside what plan.md estimated before launch
(issue 44, Deliver 2 and 8).

- the held-out loss: the seconds its records measured around their forward passes (heldout_loss.py
  `_evaluate`: the model load is outside them, as the estimate prices the loss when it rides on
  the renders' one load), and their count;
- the whole comparison: `compare`'s own wall time from its first program to its records written,
  every program and model load in it;
- the estimate of both for what ran (core/plan/compare_cost.py, the numbers plan.md printed, for
  the checkpoints and held-out samples this comparison used), and the training GPU time that
  estimate takes its shares of.
A simulated run measures no GPU time (its records say device "simulated"): it is said, not priced.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec

from ltx_wizard.core.compare.compare_plan import ComparePlan, priced_by
from ltx_wizard.core.compare.loss_record import LossRecord
from ltx_wizard.core.plan.compare_cost import CompareCost, compare_cost
from ltx_wizard.core.tuning.duration import clock

SIMULATED = "simulated"  # the device the simulated programs write in their records


class MeasuredCost(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    device: str | None  # the loss records' device ("cuda", "cpu", "simulated"); None without a loss
    loss_s: float | None  # the loss's passes, measured (None without a held-out loss)
    loss_passes: int | None
    whole_s: float  # compare's wall time, every program and model load in it
    rendered: bool  # the tournament ran (the loss rode on its model load)
    estimated_loss_s: float | None  # plan.md's figure for the same passes (None: autotune left none)
    estimated_whole_s: float | None
    train_gpu_s: float | None  # the training GPU time the estimate's shares are of


def estimate(run: Path, config: Mapping[str, Any], plan: ComparePlan) -> CompareCost | None:
    """plan.md's estimate for what this comparison ran: its checkpoints and held-out samples."""
    duration, gpus = priced_by(run)
    if duration is None:
        return None
    cost = compare_cost(config, duration, plan.held_out_clips, gpus)
    return dataclasses.replace(cost, checkpoints=len(plan.checkpoints), samples=plan.held_out_clips)


def measured(
    records: Sequence[LossRecord], whole_s: float, cost: CompareCost | None, *, rendered: bool
) -> MeasuredCost:
    """The measured cost from the loss records this comparison wrote (the base's included)."""
    estimated_loss = estimated_whole = None
    if cost is not None:
        estimated_loss = cost.loss_s() if records else None
        estimated_whole = cost.total_s() if rendered else cost.loss_alone_s()
    return MeasuredCost(
        device=records[0].device if records else None,
        loss_s=round(sum(r.seconds for r in records), 3) if records else None,
        loss_passes=sum(r.forward_passes for r in records) if records else None,
        whole_s=round(whole_s, 3),
        rendered=rendered,
        estimated_loss_s=None if estimated_loss is None else round(estimated_loss, 3),
        estimated_whole_s=None if estimated_whole is None else round(estimated_whole, 3),
        train_gpu_s=None if cost is None else round(cost.train_gpu_s, 3),
    )


def cost_lines(cost: MeasuredCost) -> list[str]:
    """`compare`'s words on what it cost, measured, against plan.md's estimate."""
    what = "the whole comparison" + (" (health check, loss and renders)" if cost.rendered else "")
    if cost.device == SIMULATED:
        return [
            f"cost: simulated GPUs, so no GPU time was measured: {what} took {clock(cost.whole_s)} of "
            f"the simulator's wall time; plan.md estimated {_estimate(cost)} on the planned GPUs"
        ]
    lines = []
    if cost.loss_s is not None:
        lines.append(
            f"cost: held-out loss {cost.loss_passes:,} forward passes in {clock(cost.loss_s)} on "
            f"{cost.device}, measured ({_of(cost.loss_s, cost)}); plan.md estimated "
            f"{_clock(cost.estimated_loss_s)}"
        )
    lines.append(
        f"cost: {what} {clock(cost.whole_s)} wall, every program and model load in it, measured "
        f"({_of(cost.whole_s, cost)}); plan.md estimated {_clock(cost.estimated_whole_s)}"
    )
    return lines


def _clock(seconds: float | None) -> str:
    return "nothing (autotune left no duration estimate)" if seconds is None else clock(seconds)


def _estimate(cost: MeasuredCost) -> str:
    if cost.estimated_whole_s is None:
        return "nothing (autotune left no duration estimate)"
    loss = "" if cost.estimated_loss_s is None else f"the held-out loss at {clock(cost.estimated_loss_s)}, "
    return f"{loss}the whole comparison at {clock(cost.estimated_whole_s)}"


def _of(seconds: float, cost: MeasuredCost) -> str:
    if not cost.train_gpu_s:
        return "no training GPU time estimated to compare it with"
    share = seconds / cost.train_gpu_s * 100
    return f"{share:.1f} % of the {clock(cost.train_gpu_s)} of training GPU time plan.md estimated"
