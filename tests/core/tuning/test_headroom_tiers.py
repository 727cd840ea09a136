"""The headroom floor counts what the trainer allocates: which trials it lets run, per tier.

The checkpoints are look-alikes with LTX-2's real block geometry (48 blocks, video width 4096,
audio width 2048), so the LoRA size comes from actual tensor shapes as the trainer's peft sees them.
"""

from __future__ import annotations

import pytest

from ltx_wizard.core.autotune.sweep.planned_config import planned_model_size
from ltx_wizard.core.tuning.results import TrialResult
from ltx_wizard.core.tuning.headroom import (
    TrainSettings,
    floor,
    lora_params_per_rank,
    model_size,
    predict,
)
from ltx_wizard.core.tuning.schedule import Context, Tuner
from ltx_wizard.core.inputs.checkpoint import inspect_checkpoint
from ltx_wizard.demo.lookalike_models import make_checkpoint
from ltx_wizard.core.gpu.tiers import Tier

LOW = TrainSettings("int8-quanto", "adamw8bit", 1, 1, True, lora_rank=16)
STD = TrainSettings(None, "adamw", 1, 1, True, lora_rank=32)
FULL = TrainSettings(None, "adamw", 1, 1, True, training_mode="full")
RTX5090, A6000, H100, H200 = 31.8, 47.9, 79.6, 140.4
DEFAULT_TARGETS = ["to_k", "to_q", "to_v", "to_out.0"]


@pytest.fixture(scope="module")
def ckpts(tmp_path_factory):
    d = tmp_path_factory.mktemp("ckpt")
    return {
        size: inspect_checkpoint(make_checkpoint(d / f"ltx-{size}b.safetensors", params_b=size, blocks=48))
        for size in (19, 22)
    }


def run_all(tuner: Tuner, fail: dict[str, str] | None = None) -> list[str]:
    """Every trial that runs succeeds 10 % faster than the last (unless `fail` says otherwise)."""
    ran, step = [], 4.0
    while (cand := tuner.next()) is not None:
        ran.append(cand.stage)
        outcome = (fail or {}).get(cand.stage, "ok")
        step *= 0.9
        tuner.record(
            TrialResult(
                index=cand.index,
                change=cand.change,
                changes=cand.changes,
                outcome=outcome,
                step_time_s=step if outcome == "ok" else None,
                peak_vram_gb=None,
            )
        )
    return ran


def skipped(tuner: Tuner) -> dict[str, str]:
    found = {r.change: r.reason for r in tuner.results if r.outcome == "skipped"}
    return {**{c.split(",")[0]: why for c, why in found.items()}, **found}


def test_lora_size_is_read_from_the_targeted_tensors(ckpts):
    info = ckpts[19]
    # 48 blocks x (2 x 4 x 8192 + 2 x 4 x 4096 + 2 x 20480): about 6.7 M per unit of rank.
    assert model_size(info, DEFAULT_TARGETS).lora_params_per_rank == 6_684_672
    # Adding the video feed-forward: "ff.net.2" matches ff.net.2 but not audio_ff.net.2 (peft
    # matches whole dotted names), so exactly 48 x (4096 + 16384 + 16384 + 4096) more.
    with_ff = model_size(info, [*DEFAULT_TARGETS, "ff.net.0.proj", "ff.net.2"])
    assert with_ff.lora_params_per_rank == 6_684_672 + 48 * 2 * (4096 + 16384)
    assert lora_params_per_rank(info.linears, ["attn1.to_q"]) == 48 * (4096 + 4096)


def test_the_engine_sizes_the_model_from_the_config_targets(tmp_path):
    path = make_checkpoint(tmp_path / "c.safetensors", params_b=19, blocks=48)
    only_q = planned_model_size(tmp_path, str(path), ["to_q"])
    assert only_q is not None and only_q.transformer_params == 19e9
    assert only_q.lora_params_per_rank == 48 * (2 * 8192 + 2 * 4096 + (2048 + 4096) + 4096)


def test_lora_counts_fp32_weights_grads_and_optimizer_state(ckpts):
    size = model_size(ckpts[19], DEFAULT_TARGETS)
    trained = 32 * 6_684_672
    adamw = floor(STD, size)
    assert adamw.trainable_gb + adamw.grads_gb + adamw.optimizer_gb == pytest.approx(trained * 16 / 1024**3)
    eight_bit = floor(STD.with_changes({"optimization.optimizer_type": "adamw8bit"}), size)
    assert eight_bit.optimizer_gb == pytest.approx(trained * 2 / 1024**3)
    ddp = floor(STD, size, num_gpus=2)  # DDP keeps a bucket copy of the gradients on every rank
    assert ddp.total_gb - adamw.total_gb == pytest.approx(trained * 4 / 1024**3)


def test_32gb_tier_never_tries_bf16_weights_and_goes_on_to_the_optimizer(ckpts):
    size = model_size(ckpts[22], DEFAULT_TARGETS)
    tuner = Tuner(
        LOW, Context(Tier.T32, RTX5090, 22e9, allow_batch_change=True, subset_samples=4, model=size)
    )
    ran = run_all(tuner, fail={"batch2": "oom"})
    # skipped for headroom is no OOM: the optimizer lever runs, then (batch change allowed) batch 2
    assert ran == ["baseline", "optimizer", "batch2"]
    assert "needs at least 44.5 GiB (weights 41.0" in skipped(tuner)["quantization int8-quanto -> null"]


def test_40_60_tier_runs_every_lever(ckpts):
    size = model_size(ckpts[22], DEFAULT_TARGETS)
    tuner = Tuner(
        LOW, Context(Tier.T40_60, A6000, 22e9, allow_batch_change=True, subset_samples=4, model=size)
    )
    assert run_all(tuner) == ["baseline", "quantization", "optimizer", "batch2", "batch4"]


def test_80gb_lora_on_one_and_two_gpus_runs_its_real_levers(ckpts):
    size = model_size(ckpts[22], DEFAULT_TARGETS)
    for gpus in (1, 2):
        tuner = Tuner(
            STD,
            Context(
                Tier.T80, H100, 22e9, allow_batch_change=True, subset_samples=8, num_gpus=gpus, model=size
            ),
        )
        ran = run_all(tuner)
        assert ran == ["baseline", "batch2", "batch4", "checkpointing"], gpus


def test_full_finetune_on_8_h100_is_no_longer_wrongly_skipped(ckpts):
    # fp32 weights + grads + AdamW = 16 bytes/param, sharded by FSDP: 22e9 x 16 / 8 = 41 GiB.
    size = model_size(ckpts[22], DEFAULT_TARGETS)
    tuner = Tuner(
        FULL,
        Context(Tier.T80, H100, 22e9, allow_batch_change=True, subset_samples=32, num_gpus=8, model=size),
    )
    assert run_all(tuner) == ["baseline", "batch2", "batch4", "checkpointing"]
    fit = predict(
        FULL, FULL.with_changes({"optimization.batch_size": 2}), None, H100, 22e9, model=size, num_gpus=8
    )
    assert fit.fits and fit.floor_gb == pytest.approx(22e9 * 16 / 8 / 1024**3 + 2.5)


def test_full_finetune_on_4_h100_fits_19b_but_not_22b(ckpts):
    runs = {}
    for params in (19, 22):
        size = model_size(ckpts[params], DEFAULT_TARGETS)
        tuner = Tuner(
            FULL,
            Context(
                Tier.T80,
                H100,
                params * 1e9,
                allow_batch_change=True,
                subset_samples=16,
                num_gpus=4,
                model=size,
            ),
        )
        runs[params] = run_all(tuner)
    assert runs[19] == ["baseline", "batch2", "batch4", "checkpointing"]
    assert runs[22] == ["baseline"]


def test_full_finetune_on_2_gpus_cannot_hold_its_shard(ckpts):
    size = model_size(ckpts[22], DEFAULT_TARGETS)
    tuner = Tuner(
        FULL, Context(Tier.T80, H200, 22e9, allow_batch_change=True, subset_samples=8, num_gpus=2, model=size)
    )
    assert run_all(tuner) == ["baseline"]
    reason = skipped(tuner)["batch_size 1 -> 2"]
    assert "needs at least 166.4 GiB" in reason and "sharded over 2 GPUs" in reason
