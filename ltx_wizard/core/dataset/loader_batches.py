"""How many usable samples the trainer's loader needs before it yields a single batch.

Mirrors ltx_trainer/trainer.py LtxvTrainer._init_dataloader: DataLoader(batch_size, drop_last=True),
then accelerator.prepare(), whose BatchSamplerShard (accelerate/data_loader.py) hands a process a
batch only once every process has a full one. So fewer than batch x processes samples yield no
batch at all, and the training loop's first next() raises StopIteration (checked against
accelerate: 3 samples at batch 1 on 8 processes give every process an empty loader).
"""

from __future__ import annotations


def samples_needed(batch_size: int, num_gpus: int) -> int:
    return max(batch_size, 1) * max(num_gpus, 1)


def starved_loader(samples: int, batch_size: int, num_gpus: int) -> str:
    """The plan's warning when the data cannot fill one batch on every GPU; "" when it can."""
    need = samples_needed(batch_size, num_gpus)
    if samples >= need:
        return ""
    gpus = max(num_gpus, 1)
    fixes = ["add samples"]
    if batch_size > 1:
        fixes.append("lower optimization.batch_size")
    if gpus > 1:
        fixes.append(
            f"train on at most {max(samples // max(batch_size, 1), 1)} GPU(s) (CUDA_VISIBLE_DEVICES)"
        )
    return (
        f"the data holds {samples} usable sample(s), fewer than one batch on every GPU "
        f"(batch_size {batch_size} x {gpus} GPU(s) = {need}): the trainer's loader then gives "
        "no batch at all and training stops at its first step (StopIteration); " + ", or ".join(fixes)
    )
