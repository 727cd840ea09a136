"""compare's measured cost beside plan.md's estimate: summed from the loss records it wrote, its own
wall time, and compare_cost's figures for the checkpoints and samples it used."""

from __future__ import annotations

from ltx_wizard.core.compare.loss_record import LossRecord, LossSet
from ltx_wizard.core.compare.measured_cost import cost_lines, measured
from ltx_wizard.core.plan.compare_cost import CompareCost


def _record(seconds: float, passes: int, device: str = "cuda") -> LossRecord:
    part = LossSet(root="/h", samples=("a.pt", "b.pt"), loss=0.1, loss_per_sigma=(0.1, 0.1))
    return LossRecord(
        checkpoint=None,
        step=None,
        strategy="TextToVideoStrategy",
        sigmas=(0.3, 0.7),
        seed=42,
        held_out=part,
        train=part,
        effect=None,
        forward_passes=passes,
        seconds=seconds,
        device=device,
    )


# 3 checkpoints, 2 samples, 2 sigmas: 2 x 2 x 2 x (3 + 1) = 32 passes of 0.5 s = 16 s; a 60 s load;
# renders (1 + 3) x 3 prompts x 4 s = 48 s + the load; training 2,000 s
COST = CompareCost(
    checkpoints=3, samples=2, forward_s=0.5, load_s=60.0, prompts=3, video_s=4.0, train_gpu_s=2000.0, sigmas=2
)


def test_the_measured_loss_is_the_records_sum_beside_the_estimate_for_the_same_passes():
    records = [_record(5.0, 8), _record(5.5, 8), _record(5.5, 8), _record(6.0, 8)]
    cost = measured(records, 150.0, COST, rendered=True)
    assert (cost.loss_s, cost.loss_passes, cost.device) == (22.0, 32, "cuda")
    assert cost.loss_passes == COST.passes  # what ran is what plan.md priced
    assert cost.estimated_loss_s == 16.0 and cost.estimated_whole_s == 16.0 + 60.0 + 48.0
    loss, whole = cost_lines(cost)
    assert loss == (
        "cost: held-out loss 32 forward passes in 22 s on cuda, measured (1.1 % of the 33 min of "
        "training GPU time plan.md estimated); plan.md estimated 16 s"
    )
    assert whole.startswith("cost: the whole comparison (health check, loss and renders) 2 min wall")
    assert "(7.5 % of the 33 min" in whole and whole.endswith("plan.md estimated 2 min")


def test_without_renders_the_estimate_is_the_loss_with_its_own_model_load():
    cost = measured([_record(8.0, 16)], 90.0, COST, rendered=False)
    assert cost.estimated_whole_s == COST.loss_alone_s() == 16.0 + 60.0
    assert cost_lines(cost)[1].startswith("cost: the whole comparison 2 min wall")


def test_without_a_held_out_loss_only_the_whole_is_said():
    cost = measured([], 30.0, COST, rendered=True)
    assert cost.loss_s is None and cost.estimated_loss_s is None
    assert [line.split(" ")[1] for line in cost_lines(cost)] == ["the"]


def test_a_simulated_run_says_it_measured_no_gpu_time():
    (line,) = cost_lines(measured([_record(0.0, 32, "simulated")], 12.0, COST, rendered=True))
    assert line.startswith("cost: simulated GPUs, so no GPU time was measured")
    assert "plan.md estimated the held-out loss at 16 s, the whole comparison at 2 min" in line


def test_without_a_duration_estimate_nothing_is_compared():
    cost = measured([_record(4.0, 8)], 20.0, None, rendered=False)
    assert cost.estimated_loss_s is None and cost.train_gpu_s is None
    assert "no training GPU time estimated to compare it with" in cost_lines(cost)[0]
    assert cost_lines(cost)[0].endswith("plan.md estimated nothing (autotune left no duration estimate)")
