"""core/compare/loss_record.py: the held-out loss record read back strictly (unknown fields and
other versions refused with the file's name), its file names, and its one-line text with fixed
digits (the same record prints the same text; a NaN is never printed as a number)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.compare.loss_record import LossRecord, LossSet, loss_file, loss_line, read_loss_record

OLD = Path(__file__).parents[1] / "io" / "old_run"


def _record(**changes) -> LossRecord:
    held = LossSet(root="/h", samples=("a.pt", "b.pt"), loss=0.11324, loss_per_sigma=(0.2, 0.02649))
    train = LossSet(root="/t", samples=("c.pt", "d.pt"), loss=0.10206, loss_per_sigma=(0.19, 0.014))
    fields = dict(
        checkpoint="/r/outputs/checkpoints/lora_weights_step_01400.safetensors",
        step=1400,
        strategy="FlexibleStrategy",
        sigmas=(0.3, 0.7),
        seed=42,
        held_out=held,
        train=train,
        effect=0.14249,
        forward_passes=12,
        seconds=1.5,
        device="cuda",
    )
    return LossRecord(**{**fields, **changes})


def test_a_checkpoints_line_shows_its_losses_gap_and_effect_with_fixed_digits():
    assert loss_line(_record()) == (
        "step 1,400: held-out loss 0.1132 (2 clips), train 0.1021 (2 clips, gap +0.0112); "
        "effect 14.25 % against base"
    )
    # past the printed digits, two evaluations print the same text
    assert loss_line(_record(effect=0.142490001)) == loss_line(_record())
    base = _record(checkpoint=None, step=None, effect=None)
    assert (
        loss_line(base) == "base model: held-out loss 0.1132 (2 clips), train 0.1021 (2 clips, gap +0.0112)"
    )


def test_a_not_finite_loss_is_said_so():
    held = LossSet(root="/h", samples=("a.pt",), loss=None, loss_per_sigma=(None, None))
    line = loss_line(_record(held_out=held, effect=None))
    assert line == (
        "step 1,400: held-out loss not finite (1 clips), train 0.1021 (2 clips); effect not finite against base"
    )


def test_the_files_are_named_by_checkpoint_beside_the_base_models(tmp_path):
    ckpt = Path("/x/lora_weights_step_00500.safetensors")
    assert loss_file(tmp_path, None) == tmp_path / "outputs" / "compare" / "heldout-loss-base.json"
    assert loss_file(tmp_path, ckpt) == tmp_path / "outputs/compare/heldout-loss-lora_weights_step_00500.json"


@pytest.fixture
def written(tmp_path) -> Path:
    shutil.copytree(OLD, tmp_path / "run")
    return loss_file(tmp_path / "run", None)


def test_the_programs_file_reads_back(written):
    record = read_loss_record(written)
    assert record is not None and record.checkpoint is None and len(record.held_out.samples) == 3
    assert read_loss_record(written.with_name("heldout-loss-absent.json")) is None


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (lambda d: d.update(extra=1), "unknown field `$.extra`"),
        (lambda d: d["held_out"].update(mean=1), "unknown field `$.held_out.mean`"),
        (lambda d: d.update(version=2), "is of version 2, written by a newer ltx-wizard"),
        (lambda d: d["train"].update(loss="0.1"), "is damaged"),
        (lambda d: d.update(sigmas=[0.5]), "is damaged"),  # 5 losses per sigma for 1 sigma
    ],
)
def test_a_damaged_file_is_refused_with_its_name(written, change, why):
    doc = json.loads(written.read_text())
    change(doc)
    written.write_text(json.dumps(doc))
    with pytest.raises(UsageError, match="held-out loss record .*heldout-loss-base.json") as info:
        read_loss_record(written)
    assert why in str(info.value)
