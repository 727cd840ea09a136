"""The VRAM tier policy: per-GPU memory -> tier, base config, key choices, launch style.

Drivers report a little less than the marketed size (an H100 80GB shows 79.65 GiB, an RTX 5090
31.84 GiB), so classification uses the card's *nominal* size: the reported GiB snapped up to the
nearest marketed size when it is within 7 % of it (2.5 % at the tier boundaries 32, 40 and
80, so no smaller card is lifted over a line), else rounded. The seed leaves two gaps, decided
here: 33-39 GB belongs to the 32GB tier (above the minimum, below the first tested mid-range
card) and 61-79 GB to the 40-60GB tier (autotuned up from the low-VRAM config; only the 80GB
config is tested at 80).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from typing import Iterable, Literal

from ltx_wizard.core.gpu.devices import MIB, GpuInfo

MINIMUM_GB = 32
STANDARD_CONFIG = "t2v_lora.yaml"
LOW_VRAM_CONFIG = "t2v_lora_low_vram.yaml"
QUICK_START_DOC = "packages/ltx-trainer/docs/quick-start.md"

# Marketed per-GPU memory sizes in GB (decimal marketing of binary sizes, as vendors do).
_MARKETED_GB = (
    4,
    6,
    8,
    10,
    11,
    12,
    16,
    20,
    24,
    32,
    40,
    48,
    64,
    80,
    94,
    96,
    128,
    141,
    144,
    180,
    192,
    288,
)
_SNAP_TOLERANCE = 0.07
# At the tier boundaries a loose snap could lift a smaller card over a line (a 30 GiB card past
# the 32 GB gate), so those sizes only absorb the usual driver reservation.
_BOUNDARY_TOLERANCE = {32: 0.025, 40: 0.025, 80: 0.025}


class Tier(str, Enum):
    BELOW_MINIMUM = "below-minimum"
    T32 = "32GB"
    T40_60 = "40-60GB"
    T80 = "80GB+"
    UNKNOWN = "unknown"

    @property
    def display_name(self) -> str:
        """The seed's user-facing name (en dash in 40–60)."""
        return _DISPLAY[self]


_DISPLAY = {
    Tier.BELOW_MINIMUM: "below the 32 GB minimum",
    Tier.T32: "32GB tier",
    Tier.T40_60: "40–60GB tier",
    Tier.T80: "80GB+ tier",
    Tier.UNKNOWN: "unknown tier",
}

LaunchStyle = Literal["single", "ddp", "fsdp"]


# Frozen dataclasses, as core/gpu/devices.py's: the probe screen shows a policy before pydantic is loaded.
@dataclass(frozen=True, kw_only=True)
class KeyChoice:
    key: str  # dotted path in the trainer config
    value: object


@dataclass(frozen=True, kw_only=True)
class TierPolicy:
    """What a tier means for the run: its base file and the choices that file already makes."""

    tier: Tier
    base_config: str | None
    key_choices: tuple[KeyChoice, ...]
    summary: str


_LOW_VRAM_CHOICES = (
    KeyChoice(key="optimization.optimizer_type", value="adamw8bit"),
    KeyChoice(key="optimization.enable_gradient_checkpointing", value=True),
    KeyChoice(key="optimization.batch_size", value=1),
    KeyChoice(key="optimization.gradient_accumulation_steps", value=1),
    KeyChoice(key="acceleration.quantization", value="int8-quanto"),
    KeyChoice(key="acceleration.load_text_encoder_in_8bit", value=True),
    KeyChoice(key="acceleration.offload_optimizer_during_validation", value=True),
    KeyChoice(key="lora.rank", value=16),
    KeyChoice(key="lora.alpha", value=16),
)
_STANDARD_CHOICES = (
    KeyChoice(key="optimization.optimizer_type", value="adamw"),
    KeyChoice(key="optimization.enable_gradient_checkpointing", value=True),
    KeyChoice(key="optimization.batch_size", value=1),
    KeyChoice(key="optimization.gradient_accumulation_steps", value=1),
    KeyChoice(key="acceleration.quantization", value=None),
    KeyChoice(key="acceleration.load_text_encoder_in_8bit", value=False),
    KeyChoice(key="lora.rank", value=32),
    KeyChoice(key="lora.alpha", value=32),
)

_POLICIES = {
    Tier.T32: TierPolicy(
        tier=Tier.T32,
        base_config=LOW_VRAM_CONFIG,
        key_choices=_LOW_VRAM_CHOICES,
        summary="Low-VRAM config verbatim: 8-bit optimizer, int8 weights, 8-bit text encoder. "
        "Autotune may relax them, but at 32 GB it often runs out of memory on trial 2 or 3.",
    ),
    Tier.T40_60: TierPolicy(
        tier=Tier.T40_60,
        base_config=LOW_VRAM_CONFIG,
        key_choices=_LOW_VRAM_CHOICES,
        summary="No tested config exists for this range: start from the low-VRAM config and let "
        "autotune relax it on measured headroom.",
    ),
    Tier.T80: TierPolicy(
        tier=Tier.T80,
        base_config=STANDARD_CONFIG,
        key_choices=_STANDARD_CHOICES,
        summary="Standard config verbatim: AdamW, no quantization.",
    ),
    Tier.BELOW_MINIMUM: TierPolicy(
        tier=Tier.BELOW_MINIMUM,
        base_config=LOW_VRAM_CONFIG,
        key_choices=_LOW_VRAM_CHOICES,
        summary="Below the trainer's 32 GB minimum: only the low-VRAM config, at your own risk.",
    ),
    Tier.UNKNOWN: TierPolicy(
        tier=Tier.UNKNOWN,
        base_config=None,
        key_choices=(),
        summary="GPU memory is unknown: state it to pick a tier.",
    ),
}


def nominal_gb(memory_bytes: int) -> int:
    """The marketed size of a card from the memory its driver reports."""
    gib = memory_bytes / (1024 * MIB)
    for size in _MARKETED_GB:
        tolerance = _BOUNDARY_TOLERANCE.get(size, _SNAP_TOLERANCE)
        if size * (1 - tolerance) <= gib <= size + 0.5:
            return size
    return max(1, math.floor(gib + 0.5))


def tier_for_gb(gb: float | None) -> Tier:
    if gb is None:
        return Tier.UNKNOWN
    if gb < MINIMUM_GB:
        return Tier.BELOW_MINIMUM
    if gb < 40:
        return Tier.T32
    if gb < 80:
        return Tier.T40_60
    return Tier.T80


def smallest_nominal_gb(gpus: Iterable[GpuInfo]) -> int | None:
    """Nominal GB of the smallest visible GPU; None if any GPU's memory is unknown or none exist."""
    sizes = []
    for gpu in gpus:
        if gpu.memory_total_bytes is None:
            return None
        sizes.append(nominal_gb(gpu.memory_total_bytes))
    return min(sizes) if sizes else None


def policy_for(tier: Tier) -> TierPolicy:
    return _POLICIES[tier]


def gate_message(gb: int) -> str:
    """The seed's minimum-gate text with <N> filled in."""
    return (
        f"This GPU has {gb}GB VRAM. The LTX-2 trainer requires a minimum of 32GB "
        f"(see `{QUICK_START_DOC}`). Training is unlikely to fit even with maximum memory "
        "savings, and we don't ship a tested config below 32GB. Options: (a) abort, (b) try "
        "anyway with the low-VRAM config and accept it may OOM — purely at your own risk."
    )


def launch_style(num_gpus: int, training_mode: str = "lora") -> LaunchStyle:
    """Single process for one GPU; DDP for LoRA on several; FSDP for full fine-tune on several."""
    if num_gpus <= 1:
        return "single"
    return "fsdp" if training_mode == "full" else "ddp"
