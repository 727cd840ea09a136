"""How many samples autotune's trials will have, from the plan's record: what decides whether a
larger batch can run at all (the Summary screen's batch choice says so before it is offered)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ltx_wizard.core.dataset.loader_batches import samples_needed

if TYPE_CHECKING:
    from ltx_wizard.core.plan.record import PlanRecord

BATCH_TRIAL = 2  # the smaller batch a batch trial tries (tuning/schedule.py batch2)


def trial_samples(rec: PlanRecord) -> int:
    """Clips: what the first preprocess encodes (core/preprocess/preprocess_steps.py first_samples: one, or
    one planned batch per GPU); preprocessed data: the subset autotune links
    (core/autotune/sweep/trial_subset.py: up to a batch of 4 per GPU, when the data has that many)."""
    gpus, batch = rec.schedule.num_gpus // max(rec.schedule.nodes, 1), rec.schedule.batch_size
    if rec.data.from_clips and not rec.data.reused:
        return 1 if gpus <= 1 else samples_needed(batch, gpus)
    for size in (4, 2, 1):
        if size * gpus <= rec.data.samples:
            return size * gpus
    return min(rec.data.samples, 1)


def batch_change_refusal(rec: PlanRecord) -> str | None:
    """Why a batch trial cannot run on this plan's trial data; None when it can. A trial runs on
    one GPU (side by side on several), and the trainer's loader (drop_last) gives no batch to
    fewer samples than the batch."""
    have = trial_samples(rec)
    if have >= BATCH_TRIAL:
        return None
    what = "clip preprocessed first" if rec.data.from_clips and not rec.data.reused else "sample"
    return (
        f"autotune's trials run on the {have} {what}{'s' if have != 1 else ''}, and a batch "
        f"of {BATCH_TRIAL} needs {BATCH_TRIAL} (the trainer's loader drops a short batch)"
    )
