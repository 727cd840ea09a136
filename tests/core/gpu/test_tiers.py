"""The tier policy against real nvidia-smi readings and the seed's rules."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from ltx_wizard.core.gpu.assessment import assess
from ltx_wizard.core.gpu.devices import MIB, GpuInfo, ProbeResult
from ltx_wizard.core.gpu.presets import simulated_probe
from ltx_wizard.core.gpu.smi_source import parse_memory_mib
from ltx_wizard.core.gpu.tiers import Tier, gate_message, launch_style, nominal_gb, tier_for_gb

GPUS_CSV = Path(__file__).resolve().parents[4] / "shared" / "reference" / "gpus.csv"
EXPECTED = {
    "below minimum": Tier.BELOW_MINIMUM,
    "32GB tier": Tier.T32,
    "40-60GB tier": Tier.T40_60,
    "80GB+ tier": Tier.T80,
    "unknown": Tier.UNKNOWN,
    "MIG mode": Tier.UNKNOWN,
}


def _rows():
    if not GPUS_CSV.exists():  # the reference lives beside the repo; a bare clone keeps these
        return [
            ("NVIDIA GeForce RTX 4090", "24564 MiB", "below minimum (gate says 24GB)"),
            ("NVIDIA GeForce RTX 5090", "32607 MiB", "32GB tier"),
            ("NVIDIA L40S", "46068 MiB", "40-60GB tier"),
            ("NVIDIA H100 80GB HBM3", "81559 MiB", "80GB+ tier"),
            ("NVIDIA GB10", "[N/A]", "unknown: unified memory"),
        ]
    with GPUS_CSV.open() as handle:
        return [tuple(r[:3]) for r in csv.reader(handle) if r and not r[0].startswith("#")]


def _expected(label: str) -> Tier:
    return next(tier for prefix, tier in EXPECTED.items() if label.startswith(prefix))


@pytest.mark.parametrize(("name", "memory", "label"), _rows())
def test_every_reference_reading_lands_in_its_tier(name, memory, label):
    mib = parse_memory_mib(memory)
    gpu = GpuInfo(index=0, name=name, memory_total_bytes=None if mib is None else mib * MIB)
    result = assess(ProbeResult(source="csv", gpus=(gpu,)))
    assert result.tier is _expected(label)
    if "gate says" in label:
        assert result.gate_blocked
        assert result.gate_message.startswith(f"This GPU has {label.split('gate says ')[1][:-1]} VRAM")


@pytest.mark.parametrize(
    ("mib", "nominal"),
    [(81559, 80), (32607, 32), (40536, 40), (24564, 24), (46068, 48), (143771, 141), (15360, 16)],
)
def test_nominal_size_snaps_driver_readings_to_the_marketed_size(mib, nominal):
    assert nominal_gb(mib * MIB) == nominal


@pytest.mark.parametrize(
    ("gb", "tier"),
    [
        (31, Tier.BELOW_MINIMUM),
        (32, Tier.T32),
        (36, Tier.T32),
        (39, Tier.T32),
        (40, Tier.T40_60),
        (60, Tier.T40_60),
        (64, Tier.T40_60),
        (79, Tier.T40_60),
        (80, Tier.T80),
        (192, Tier.T80),
    ],
)
def test_the_seed_gaps_are_decided(gb, tier):
    assert tier_for_gb(gb) is tier


def test_a_30_gib_card_is_not_snapped_past_the_gate():
    assert tier_for_gb(nominal_gb(30 * 1024 * MIB)) is Tier.BELOW_MINIMUM


def test_smallest_gpu_sets_the_tier_and_mixed_models_warn():
    result = assess(simulated_probe("mixed"))
    assert result.per_gpu_vram_gb == 24
    assert result.tier is Tier.BELOW_MINIMUM
    assert any("mixed GPU models" in note for note in result.notes)


def test_display_names_are_the_seeds():
    assert [t.display_name for t in (Tier.T32, Tier.T40_60, Tier.T80)] == [
        "32GB tier",
        "40–60GB tier",
        "80GB+ tier",
    ]


@pytest.mark.parametrize(
    ("preset", "base", "opt"),
    [
        ("rtx5090", "t2v_lora_low_vram.yaml", "adamw8bit"),
        ("a6000", "t2v_lora_low_vram.yaml", "adamw8bit"),
        ("h100", "t2v_lora.yaml", "adamw"),
        ("h200", "t2v_lora.yaml", "adamw"),
    ],
)
def test_base_config_and_key_choices_per_tier(preset, base, opt):
    result = assess(simulated_probe(preset))
    assert result.policy.base_config == base
    choices = {c.key: c.value for c in result.policy.key_choices}
    assert choices["optimization.optimizer_type"] == opt


def test_gate_message_is_the_seed_text():
    text = gate_message(24)
    assert text.startswith("This GPU has 24GB VRAM. The LTX-2 trainer requires a minimum of 32GB")
    assert text.endswith("purely at your own risk.")


def test_unknown_memory_until_stated():
    unknown = assess(simulated_probe("gb10"))
    assert unknown.tier is Tier.UNKNOWN and unknown.policy.base_config is None
    stated = assess(simulated_probe("gb10"), vram_gb=128)
    assert stated.tier is Tier.T80 and stated.vram_stated


def test_launch_style():
    assert launch_style(1) == "single"
    assert launch_style(8) == "ddp"
    assert launch_style(4, "full") == "fsdp"
