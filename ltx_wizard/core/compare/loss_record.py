"""The held-out loss of one LoRA checkpoint (issue 44, Deliver 2), as trainer_side/heldout_loss.py
writes it under RUN/outputs/compare/: the trainer's own training loss at a fixed grid of sigmas with
fixed noise seeds, on the held-out latents and on an equal seeded sample of the training latents,
and the effect size against the base model (the mean relative change of the prediction, LoRA on
against off, on the held-out latents at the same sigmas).

The program runs in the trainer's environment and cannot import this module, so the record's shape
is declared here once and read back through the run folder's codec (strict, versioned); a test runs
the program and decodes what it wrote. The numbers are printed with fixed digits, so the same
checkpoint evaluated twice prints the same text (the program's own numbers are bitwise equal on
CPU; on a GPU they may differ past the printed digits).
"""

from __future__ import annotations

import math
from pathlib import Path

import msgspec

from ltx_wizard.core.io import run_folder
from ltx_wizard.core.io.run_codec import declare

LOSS_VERSION = 1
LOSS_DECIMALS = 4  # the example: "lowest held-out loss (0.1132; train 0.1021)"
PREFIX = "heldout-loss-"  # heldout-loss-base.json, heldout-loss-<checkpoint stem>.json


class LossSet(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The loss on one set of latents: which samples (relative to its root), the mean over every
    (sample, sigma) pair, and the mean per sigma. None where a prediction was not finite (a NaN
    LoRA): JSON has no NaN, and a NaN loss must never read as a number."""

    root: str
    samples: tuple[str, ...]
    loss: float | None
    loss_per_sigma: tuple[float | None, ...]


class LossRecord(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    version: int = LOSS_VERSION
    checkpoint: str | None  # the LoRA file; None for the base model
    step: int | None  # from the file name, as the trainer's _find_checkpoint reads it
    strategy: str  # the trainer's strategy class that computed the loss
    sigmas: tuple[float, ...]
    seed: int  # the noise seeds and the training sample's choice derive from it
    held_out: LossSet
    train: LossSet
    effect: float | None  # None for the base model, or where not finite
    forward_passes: int  # the cost, in transformer forward passes, for the estimate on a GPU
    seconds: float  # measured wall time of the passes (the only field that differs run to run)
    device: str

    def __post_init__(self) -> None:
        for part in (self.held_out, self.train):
            if len(part.loss_per_sigma) != len(self.sigmas):
                raise ValueError(f"{len(part.loss_per_sigma)} losses per sigma for {len(self.sigmas)} sigmas")


LOSS_FILE = declare(run_folder.HELDOUT_LOSS, LossRecord, version=LOSS_VERSION)


def loss_file(run_dir: Path, checkpoint: Path | None) -> Path:
    """Where the record of `checkpoint` (None: the base model) lies; the program names its files
    the same way (a test checks it)."""
    base = run_folder.HELDOUT_LOSS.path(run_dir)
    return base if checkpoint is None else base.with_name(f"{PREFIX}{checkpoint.stem}.json")


def read_loss_record(path: Path) -> LossRecord | None:
    """None when the program has not written it; a damaged one is refused with its name."""
    return LOSS_FILE.read_path(path)


def loss_text(value: float | None) -> str:
    return "not finite" if value is None or not math.isfinite(value) else f"{value:.{LOSS_DECIMALS}f}"


def effect_text(effect: float | None) -> str:
    return "not finite" if effect is None or not math.isfinite(effect) else f"{effect * 100:.2f} %"


def gap(record: LossRecord) -> float | None:
    """Held-out minus training loss: over-fitting shows as a gap that grows with the step."""
    held, train = record.held_out.loss, record.train.loss
    return None if held is None or train is None else held - train


def loss_line(record: LossRecord) -> str:
    """One line, from the record alone: "step 1,400: held-out loss 0.1132 (4 clips), train 0.1021
    (4 clips, gap +0.0111); effect 14.25 % against base"."""
    who = (
        "base model"
        if record.checkpoint is None
        else f"step {record.step:,}"
        if record.step is not None
        else "checkpoint"
    )
    held, train = record.held_out, record.train
    diff = gap(record)
    line = (
        f"{who}: held-out loss {loss_text(held.loss)} ({len(held.samples)} clips), train "
        f"{loss_text(train.loss)} ({len(train.samples)} clips"
        + ("" if diff is None else f", gap {diff:+.{LOSS_DECIMALS}f}")
        + ")"
    )
    return line if record.checkpoint is None else f"{line}; effect {effect_text(record.effect)} against base"
