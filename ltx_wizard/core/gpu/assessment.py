"""Probe result + tier policy -> what this machine means for the run (pure)."""

from __future__ import annotations

from dataclasses import dataclass

from ltx_wizard.core.gpu.devices import ProbeResult
from ltx_wizard.core.gpu.tiers import (
    Tier,
    TierPolicy,
    gate_message,
    nominal_gb,
    policy_for,
    smallest_nominal_gb,
    tier_for_gb,
)


@dataclass(frozen=True, kw_only=True)
class Assessment:
    """A frozen dataclass, as core/gpu/devices.py's: the probe screen shows it before pydantic loads."""

    probe: ProbeResult
    per_gpu_vram_gb: int | None
    vram_stated: bool  # the user gave the size (--vram-gb or the TUI's question)
    tier: Tier
    policy: TierPolicy
    gate_blocked: bool
    gate_message: str | None
    notes: tuple[str, ...]
    num_gpus: int
    mixed_models: bool

    def probe_json(self) -> dict[str, object]:
        """`ltx-wizard probe --json`: a fixed contract, exactly these keys."""
        return {
            "source": self.probe.source,
            "gpus": [gpu.contract_dict() for gpu in self.probe.gpus],
            "per_gpu_vram_gb": self.per_gpu_vram_gb,
            "tier": self.tier.value,
            "base_config": self.policy.base_config,
            "gate": {"blocked": self.gate_blocked, "message": self.gate_message},
            "notes": list(self.notes),
        }


def assess(probe: ProbeResult, vram_gb: float | None = None) -> Assessment:
    """Classify by the smallest visible GPU; `vram_gb` (stated by the user) wins when given."""
    notes = list(probe.notes)
    probed = smallest_nominal_gb(probe.gpus)
    per_gpu: int | None
    if vram_gb is not None:
        per_gpu = int(round(vram_gb))
        if probed is not None and probed != per_gpu:
            notes.append(f"using the stated {per_gpu} GB per GPU instead of the probed {probed} GB")
        elif probed is None:
            notes.append(f"per-GPU memory stated as {per_gpu} GB")
    else:
        per_gpu = probed
        unknown = [g for g in probe.gpus if g.memory_total_bytes is None]
        if unknown:
            notes.append(
                f"{unknown[0].name} does not report its memory (unified memory, or MIG inside an "
                "unprivileged container): state the per-GPU memory with --vram-gb N"
            )
    names = {gpu.name for gpu in probe.gpus}
    mixed = len(names) > 1
    if mixed and probe.gpus:
        sizes = [
            f"{g.name} ({nominal_gb(g.memory_total_bytes)} GB)"
            for g in probe.gpus
            if g.memory_total_bytes is not None
        ]
        notes.append(
            "mixed GPU models: the smallest sets the tier for all of them, since every process "
            "holds the same model and batch — " + ", ".join(sizes)
        )
    tier = tier_for_gb(per_gpu) if probe.gpus else Tier.UNKNOWN
    blocked = tier is Tier.BELOW_MINIMUM
    return Assessment(
        probe=probe,
        per_gpu_vram_gb=per_gpu,
        vram_stated=vram_gb is not None,
        tier=tier,
        policy=policy_for(tier),
        gate_blocked=blocked,
        gate_message=gate_message(per_gpu) if blocked and per_gpu is not None else None,
        notes=tuple(notes),
        num_gpus=len(probe.gpus),
        mixed_models=mixed,
    )
