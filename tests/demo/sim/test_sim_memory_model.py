"""The simulated trainer's memory and step-time model reproduces what users report per GPU."""

from __future__ import annotations

import copy

import pytest
from ruamel.yaml import YAML

from ltx_wizard.core.gpu.presets import preset_gpus
from ltx_wizard.demo.lookalike_checkout import LOW_VRAM_TEXT, STANDARD_TEXT
from ltx_wizard.demo.sim.memory_model import estimate

STANDARD = YAML(typ="safe").load(STANDARD_TEXT)
LOW_VRAM = YAML(typ="safe").load(LOW_VRAM_TEXT)


def config(base: dict, **changes) -> dict:
    """`base` with dotted-key changes, e.g. config(LOW_VRAM, **{"optimization.batch_size": 2})."""
    out = copy.deepcopy(base)
    for dotted, value in changes.items():
        section, key = dotted.split(".")
        out[section][key] = value
    return out


def on(preset: str, cfg: dict, **kwargs):
    gpu = preset_gpus(preset)[0]
    return estimate(cfg, gpu.memory_total_bytes / 1024**3, gpu_name=gpu.name, **kwargs)


NO_QUANT = {"acceleration.quantization": None}
NO_CHECKPOINTING = {"optimization.enable_gradient_checkpointing": False}


@pytest.mark.parametrize(
    ("preset", "base", "changes", "fits"),
    [
        ("rtx5090", LOW_VRAM, {}, True),
        ("rtx5090", LOW_VRAM, NO_QUANT, False),
        ("rtx5090", LOW_VRAM, {"optimization.batch_size": 2}, False),
        ("rtx4090", LOW_VRAM, {}, False),
        ("a6000", LOW_VRAM, NO_QUANT, True),
        ("a6000", LOW_VRAM, {**NO_QUANT, "optimization.optimizer_type": "adamw"}, True),
        (
            "a6000",
            LOW_VRAM,
            {**NO_QUANT, "optimization.optimizer_type": "adamw", "optimization.batch_size": 2},
            False,
        ),
        ("h100", STANDARD, {}, True),
        ("h100", STANDARD, NO_CHECKPOINTING, False),
        ("h200", STANDARD, NO_CHECKPOINTING, False),
    ],
)
def test_which_configs_fit_on_which_cards(preset, base, changes, fits):
    assert on(preset, config(base, **changes)).fits is fits


def test_the_low_vram_config_sits_just_under_a_5090s_memory():
    result = on("rtx5090", LOW_VRAM)
    assert 30.5 <= result.peak_gb <= 31.84


def test_the_standard_config_reads_60_to_70_gb_on_an_h100():
    result = on("h100", STANDARD)
    assert 60 <= result.peak_gb <= 70
    assert result.breakdown["required_gb"] < result.peak_gb  # the rest is allocator cache


def test_an_oom_reports_what_would_have_been_needed():
    result = on("h100", config(STANDARD, **NO_CHECKPOINTING))
    assert result.peak_gb > 80
    assert result.peak_gb == pytest.approx(result.breakdown["required_gb"], abs=0.01)


def test_quantization_saves_memory_in_proportion_to_its_bits():
    sizes = [
        on("b200", config(STANDARD, **{"acceleration.quantization": q})).breakdown["weights_gb"]
        for q in (None, "int8-quanto", "int4-quanto", "int2-quanto")
    ]
    assert sizes == sorted(sizes, reverse=True)
    assert 40 < sizes[0] < 42  # 22e9 bf16 parameters


def test_step_time_follows_each_lever():
    base = on("h100", STANDARD).step_time_s
    int8 = on("h100", config(STANDARD, **{"acceleration.quantization": "int8-quanto"}))
    assert int8.step_time_s == pytest.approx(base * 1.25, rel=0.01)
    adamw8bit = on("h100", config(STANDARD, **{"optimization.optimizer_type": "adamw8bit"}))
    assert adamw8bit.step_time_s > base
    batch2 = on("h100", config(STANDARD, **{"optimization.batch_size": 2})).step_time_s
    assert batch2 == pytest.approx(base * 1.8, rel=0.01) and batch2 / 2 < base
    assert on("h100", config(STANDARD, **NO_CHECKPOINTING)).step_time_s < base
    assert on("a6000", STANDARD).step_time_s > on("rtx5090", STANDARD).step_time_s > base


def test_a_smaller_model_needs_less_memory(monkeypatch):
    monkeypatch.setenv("LTX_WIZARD_SIM_PARAMS", "2e9")
    assert on("rtx5090", config(LOW_VRAM, **NO_QUANT)).fits


def test_more_processes_cost_a_little_memory_and_time():
    one, two = on("h100", STANDARD), on("h100", STANDARD, num_processes=2)
    assert two.breakdown["required_gb"] > one.breakdown["required_gb"]
    assert two.step_time_s > one.step_time_s


def test_a_wrongly_typed_key_is_refused_with_its_name_not_a_value_error():
    from ltx_wizard.core.base.errors import UsageError
    from ltx_wizard.demo.sim import cost_model

    with pytest.raises(UsageError, match=r"^config.yaml: lora.rank is 'big', expected a whole number"):
        on("h100", config(LOW_VRAM, **{"lora.rank": "big"}))
    older = config(LOW_VRAM, **{"validation.videos_per_prompt": "two"})
    with pytest.raises(UsageError, match=r"^config.yaml: validation.videos_per_prompt is 'two'"):
        cost_model.validation_round_s(older, "NVIDIA H100 80GB HBM3", 1)
