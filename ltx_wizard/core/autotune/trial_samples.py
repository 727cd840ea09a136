"""Why a trial cannot run on the trial data: the trainer's loader gives nothing to a smaller set
(core/dataset/loader_batches.py says how many samples one batch on every GPU takes)."""

from __future__ import annotations

from ltx_wizard.core.dataset.loader_batches import samples_needed


def subset_refusal(batch_size: int, num_gpus: int, samples: int) -> str:
    """Why a trial with this batch cannot run on `samples` usable samples; "" when it can."""
    need = samples_needed(batch_size, num_gpus)
    if samples >= need:
        return ""
    gpus = max(num_gpus, 1)
    return (f"refused: the trial data holds {samples} usable sample(s) and batch {batch_size} x "
            f"{gpus} GPU(s) needs {need} (the trainer's loader drops an incomplete batch, so "
            "the trial would stop with StopIteration); add samples or lower the batch size")
