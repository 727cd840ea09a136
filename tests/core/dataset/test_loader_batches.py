"""Too few samples for one batch on every GPU: the real trainer's loader yields nothing and its
first step dies with StopIteration (trainer.py _init_dataloader, accelerate's BatchSamplerShard).
plan says so before anything runs; the simulated trainer dies the same way."""

from __future__ import annotations

from ltx_wizard.cli import main
from ltx_wizard.core.dataset.loader_batches import starved_loader


def test_plan_warns_when_the_data_cannot_give_every_gpu_a_batch(model_tree, capsys):
    box = model_tree(samples=3, sim="8xh100")
    assert main(box.args()) == 0  # the plan is written: the user may add samples before launch
    err = capsys.readouterr().err
    warning = (
        "the data holds 3 usable sample(s), fewer than one batch on every GPU (batch_size 1 x 8 GPU(s) = 8)"
    )
    assert warning in err and "train on at most 3 GPU(s)" in err
    assert warning in (box.run / "plan.md").read_text(encoding="utf-8")


def test_enough_samples_for_every_gpu_plan_without_that_warning(model_tree, capsys):
    box = model_tree(samples=8, sim="8xh100")
    assert main(box.args()) == 0
    assert "fewer than one batch on every GPU" not in capsys.readouterr().err


def test_the_fix_named_fits_the_case():
    assert starved_loader(4, 2, 2) == ""
    two = starved_loader(3, 2, 2)
    assert "batch_size 2 x 2 GPU(s) = 4" in two and "lower optimization.batch_size" in two
    assert "train on at most 1 GPU(s)" in two
    one = starved_loader(1, 2, 1)
    assert "GPU(s) (CUDA" not in one and "lower optimization.batch_size" in one
