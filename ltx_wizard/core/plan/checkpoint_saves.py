"""Which checkpoints the trainer leaves on disk, and what one weighs, as its config says.

Mirrors ltx_trainer/trainer.py: `LtxvTrainer.train` saves when global_step is a multiple of
checkpoints.interval and once more after the loop (always, even when the last step was just
saved: the same path is appended twice); `_save_checkpoint` appends each save to
`_checkpoint_paths`, then `_cleanup_checkpoints` deletes all but the last keep_last_n entries
(`0 < keep_last_n < len`: -1, and 0, keep every one). So keep_last_n counts the repeated last save
twice: keep_last_n 5 over saves at 400, ..., 2000 of a 2,000-step run leaves four files.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from ltx_wizard.core.io.trainer_config import trainer_config
from ltx_wizard.core.tuning.headroom import OPTIMIZER_BYTES, model_size
from ltx_wizard.core.inputs.checkpoint import CheckpointInfo

TRAINER_KEEP_LAST_N = 1  # config.py CheckpointsConfig.keep_last_n's default


def save_calls(steps: int, interval: int | None) -> tuple[int, ...]:
    """Every `_save_checkpoint` call of a run from step 0, in order (the last step maybe twice)."""
    every = range(interval, steps + 1, interval) if interval and interval > 0 else range(0)
    return (*every, steps)


@dataclass(frozen=True)
class KeptSaves:
    steps: tuple[int, ...]  # the checkpoint files left at the end, by step
    peak: int  # files at once: a save is written before the cleanup deletes the oldest


def kept_saves(steps: int, interval: int | None, keep_last_n: int | None) -> KeptSaves:
    """The files `_cleanup_checkpoints` leaves after the run's last save."""
    calls = save_calls(steps, interval)
    keep = TRAINER_KEEP_LAST_N if keep_last_n is None else keep_last_n
    every = tuple(sorted(set(calls)))
    if not 0 < keep < len(calls):
        return KeptSaves(every, len(every))
    # at most keep_last_n files between saves, one more while a save is written before the prune
    return KeptSaves(tuple(sorted(set(calls[-keep:]))), min(len(every), keep + 1))


def keep_every_save(steps: int, interval: int) -> int:
    """The keep_last_n that keeps every save of the run (the repeated last one counted twice)."""
    return len(save_calls(steps, interval))


@dataclass(frozen=True)
class CheckpointBytes:
    weights: int  # one saved checkpoint (LoRA adapters, or the whole model), at its precision
    state: int  # the optimizer state beside it (save_training_state: full), else 0

    @property
    def each(self) -> int:
        return self.weights + self.state


def checkpoint_bytes(config: Mapping[str, Any], ckpt: CheckpointInfo) -> CheckpointBytes:
    """One save's size: trainer.py `_save_checkpoint` casts to checkpoints.precision;
    `_save_training_state` "full" adds the optimizer state ("minimal": a few KB)."""
    keys = trainer_config(config)
    full = keys.model.training_mode == "full"
    size = model_size(ckpt, keys.lora.target_modules)
    trained = size.transformer_params if full else (keys.lora.rank or 64) * size.lora_params_per_rank
    precision = 4 if keys.checkpoints.precision == "float32" else 2
    state = 0
    if keys.checkpoints.save_training_state == "full":
        state = int(trained * OPTIMIZER_BYTES.get(keys.optimization.optimizer_type or "adamw", 8.0))
    return CheckpointBytes(int(trained * precision), state)
