"""Named simulated machines for `--simulate`, `--demo` and the tests.

Memory figures are what `nvidia-smi` prints on real cards (see the project's gpus.csv); a None
memory mimics a device whose driver does not report it (GB10 unified memory).
"""

from __future__ import annotations

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.gpu.devices import MIB, GpuInfo, ProbeResult

_CARDS: dict[str, tuple[str, int | None]] = {
    "t4": ("Tesla T4", 15360),
    "rtx4090": ("NVIDIA GeForce RTX 4090", 24564),
    "rtx5090": ("NVIDIA GeForce RTX 5090", 32607),
    "v100-32gb": ("Tesla V100-SXM2-32GB", 32768),
    "a100-40gb": ("NVIDIA A100-SXM4-40GB", 40536),
    "l40s": ("NVIDIA L40S", 46068),
    "a6000": ("NVIDIA RTX A6000", 49140),
    "a100-80gb": ("NVIDIA A100-SXM4-80GB", 81920),
    "h100": ("NVIDIA H100 80GB HBM3", 81559),
    "h200": ("NVIDIA H200", 143771),
    "b200": ("NVIDIA B200", 183359),
    "gb10": ("NVIDIA GB10", None),
}

# preset name -> card keys, one per GPU
PRESETS: dict[str, tuple[str, ...]] = {
    **{key: (key,) for key in _CARDS},
    "2xrtx5090": ("rtx5090",) * 2,
    "2xa6000": ("a6000",) * 2,
    "2xh100": ("h100",) * 2,
    "4xh100": ("h100",) * 4,
    "8xh100": ("h100",) * 8,
    "mixed": ("rtx4090", "a6000"),
}


def preset_names() -> list[str]:
    return sorted(PRESETS)


def preset_gpus(name: str) -> tuple[GpuInfo, ...]:
    """The simulated devices of preset `name`; an unknown name is a usage error listing the choices."""
    try:
        cards = PRESETS[name]
    except KeyError:
        raise UsageError(
            f"unknown simulated machine {name!r}; choose one of: {', '.join(preset_names())}"
        ) from None
    gpus = []
    for index, key in enumerate(cards):
        card_name, mib = _CARDS[key]
        gpus.append(
            GpuInfo(
                index=index,
                name=card_name,
                memory_total_bytes=None if mib is None else mib * MIB,
                uuid=f"GPU-51m0000{index}-{key}",
                driver_version="simulated",
            )
        )
    return tuple(gpus)


def simulated_probe(name: str) -> ProbeResult:
    gpus = preset_gpus(name)
    return ProbeResult(source="simulated", gpus=gpus, notes=(f"simulated machine: {name}",))
