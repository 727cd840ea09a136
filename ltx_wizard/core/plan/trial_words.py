"""plan.md's sanity-check paragraph: what the trials and the confirmation do, and which logs they
leave. Before autotune it states the engine's rule (autotune/sweep/engine.py: the last trial on the
plan's own launch carries the confirmation, validating with the text encoder loaded); after
autotune it reads autotune.json's trials and confirmations, so a baseline that validated is said to
have validated and only the logs that were written are named."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from ltx_wizard.core.io.trainer_config import trainer_config
from ltx_wizard.core.tuning.trial_config import FUSED_STEPS, TRIAL_STEPS

if TYPE_CHECKING:
    from ltx_wizard.core.plan.record import PlanRecord
    from ltx_wizard.core.tuning.results import AutotuneSummary, Confirmation, TrialResult


def _where(rec: PlanRecord) -> str:
    if rec.data.from_clips:
        return (
            "on the sample(s) preprocessed first into `overfit/.precomputed` (one full batch "
            "per GPU, as the trainer's loader needs)"
        )
    return (
        "on a few samples linked from the data root into `overfit/` (one full batch per GPU, as "
        "the trainer's loader needs)"
    )


def _fused(summary: AutotuneSummary | None) -> Confirmation | None:
    if summary is None:
        return None
    return next((c for c in summary.confirmations if c.fused and c.outcome != "skipped"), None)


def _baseline(rec: PlanRecord, summary: AutotuneSummary | None) -> str:
    head = f"First a sanity check, the baseline trial: a {TRIAL_STEPS}-step run of this config {_where(rec)}"
    fused = _fused(summary)
    if fused is not None and fused.trial == 1:
        return (
            f"{head}. It was the last trial, so after its step {TRIAL_STEPS} it went on to validate "
            f"at step {FUSED_STEPS} with the text encoder loaded (the confirmation below)."
        )
    return f"{head}, with validation and the text encoder off so that it measures training only."


def _confirmation(summary: AutotuneSummary | None, validates: bool) -> str:
    if not validates:
        return "The config has no validation samples, so no confirmation run follows."
    rule = (
        "The winner then gets one confirmation run with this config's own validation (its "
        "`video_dims`, one prompt, a few inference steps), proving that validation fits too"
    )
    fused = _fused(summary)
    if summary is None:
        return (
            f"{rule}; a trial that is certainly the last one, on the plan's own launch, carries it "
            f"itself: after its step {TRIAL_STEPS} it validates at step {FUSED_STEPS}, loading the "
            "text encoder, in the same process."
        )
    if fused is not None:
        return (
            f"{rule}: trial {fused.trial} carried it, validating at step {FUSED_STEPS} in the same process."
        )
    return f"{rule}."


def _ran(result: TrialResult) -> bool:
    return result.ran and not (result.outcome == "cancelled" and result.wall_s is None)


def _logs(summary: AutotuneSummary | None) -> str:
    keep = "its checkpoints are deleted once it is recorded."
    if summary is None:
        return (
            "Each run's whole output is kept in `logs/trial-N.log` (a confirmation run of its own "
            f"in `logs/confirm-N.log`); {keep}"
        )
    names = [f"`logs/trial-{t.index}.log`" for t in summary.trials if _ran(t)]
    names += [
        f"`logs/confirm-{c.trial}.log`"
        for c in summary.confirmations
        if not c.fused and c.outcome != "skipped" and not (c.outcome == "cancelled" and c.wall_s is None)
    ]
    if not names:
        return "No trial ran, so no trial log was written."
    return f"Each run's whole output is kept: {', '.join(names)}; {keep}"


def trial_checks(
    rec: PlanRecord,
    config: Mapping[str, Any],
    logged_steps: str,
    summary: AutotuneSummary | None = None,
) -> list[str]:
    """What the trials and the confirmation prove, limited to what the wizard reads from them;
    `summary`: autotune's, once it has ended (what ran, not what would)."""
    validates = bool(trainer_config(config).validation.sample_list())
    return [
        " ".join(
            (
                _baseline(rec, summary),
                "It shows that training starts and runs to the end and that the loss is finite "
                f"where the trainer prints it ({logged_steps}). Step time is measured between the "
                "arrival of its step lines; peak memory is sampled from the GPU while the trial runs.",
                _confirmation(summary, validates),
                _logs(summary),
            )
        )
    ]
