"""What each autotune stage changes, and when the rules alone leave it out (pure, no I/O).

The per-stage half of the schedule (schedule.py): `describe` names a stage's one change on the
current settings, `rule_skip` says why no measurement is needed to leave it out. Kept apart from the
Tuner so the screens' texts (rules_text.py) read the same rules without the engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from ltx_wizard.core.gpu.tiers import Tier
from ltx_wizard.core.tuning.batch_rule import batch_move
from ltx_wizard.core.tuning.headroom import TrainSettings

if TYPE_CHECKING:  # pydantic: the probe screen's levers sentence (rules_text) runs before it loads
    from ltx_wizard.core.tuning.results import TrialResult


class Context(Protocol):
    """What the rules read of schedule.py's Context (which imports this module: no circle back)."""

    @property
    def tier(self) -> Tier: ...

    @property
    def allow_batch_change(self) -> bool: ...


def describe(stage: str, s: TrainSettings, ctx: Context) -> tuple[str, dict[str, object]]:
    if stage == "baseline":
        return "baseline", {}
    # a lever already where it would go is named as such, not as a change to itself
    if stage == "quantization":
        label = (
            f"quantization {s.quantization} -> null"
            if s.quantization is not None
            else "quantization off (already null)"
        )
        return label, {"acceleration.quantization": None}
    if stage == "optimizer":
        # ltx_trainer/config.py OptimizationConfig.optimizer_type: Literal["adamw", "adamw8bit"]
        label = (
            f"optimizer {s.optimizer_type} -> adamw"
            if s.optimizer_type != "adamw"
            else "optimizer adamw (already)"
        )
        return label, {"optimization.optimizer_type": "adamw"}
    if stage.startswith("batch"):
        move = batch_move(s, int(stage[-1]), ctx.allow_batch_change)
        return move.label, move.changes
    return "gradient checkpointing off", {"optimization.enable_gradient_checkpointing": False}


def rule_skip(stage: str, s: TrainSettings, ctx: Context, results: list[TrialResult]) -> str:
    """Why the rules alone (no measurement) leave `stage` out on these settings; '' when they
    do not: a no-op, or a batch change the approved schedule refuses (batch_rule.py). The one
    rule the engine and the screens' texts (rules_text.py) both use."""
    # a batch that would change the schedule says so, even after a skipped batch 2
    refusal = stage.startswith("batch") and batch_move(s, int(stage[-1]), ctx.allow_batch_change).refusal
    noop = _noop_reason(stage, s, ctx, results)
    if noop and not (refusal and s.batch_size < int(stage[-1])):
        return noop
    return refusal or ""


def _noop_reason(stage: str, s: TrainSettings, ctx: Context, results: list[TrialResult]) -> str:
    if stage == "quantization" and s.quantization is None:
        return "no-op: quantization is already off"
    if stage == "optimizer" and s.optimizer_type == "adamw":
        return "no-op: the optimizer is already adamw"
    if stage == "batch2" and s.batch_size >= 2:
        return f"no-op: batch size is already {s.batch_size}"
    if stage == "batch4":
        if s.batch_size >= 4:
            return f"no-op: batch size is already {s.batch_size}"
        if s.batch_size < 2:
            return "batch 2 did not win, so batch 4 is not tried"
    if stage == "checkpointing":
        if ctx.tier is not Tier.T80:
            return "gradient checkpointing stays on below the 80GB+ tier"
        if not s.gradient_checkpointing:
            return "no-op: gradient checkpointing is already off"
    return ""
