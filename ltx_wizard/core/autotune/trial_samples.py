"""How many usable samples a trial needs: the trainer's loader gives nothing to a smaller set.

Mirrors ltx_trainer/trainer.py LtxvTrainer._init_dataloader: DataLoader(batch_size, drop_last=True),
then accelerator.prepare(), whose BatchSamplerShard (accelerate/data_loader.py) hands a process a
batch only once every process has a full one. So fewer than batch x processes samples yield no
batch at all and the training loop's first next() raises StopIteration.
"""

from __future__ import annotations


def samples_needed(batch_size: int, num_gpus: int) -> int:
    return max(batch_size, 1) * max(num_gpus, 1)


def subset_refusal(batch_size: int, num_gpus: int, samples: int) -> str:
    """Why a trial with this batch cannot run on `samples` usable samples; "" when it can."""
    need = samples_needed(batch_size, num_gpus)
    if samples >= need:
        return ""
    gpus = max(num_gpus, 1)
    return (f"refused: the trial data holds {samples} usable sample(s) and batch {batch_size} x "
            f"{gpus} GPU(s) needs {need} (the trainer's loader drops an incomplete batch, so "
            "the trial would stop with StopIteration); add samples or lower the batch size")
