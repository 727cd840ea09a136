"""Text helpers: GPU rows, key-choice values, paths shortened for narrow terminals."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ltx_wizard.core.gpu import GpuInfo


def gpu_row(gpu: GpuInfo) -> tuple[str, str, str, str]:
    from ltx_wizard.core.gpu import MIB  # imported when a GPU is shown, not before the first screen
    from ltx_wizard.core.tiers import nominal_gb

    if gpu.memory_total_bytes is None:
        return (str(gpu.index), gpu.name, "not reported", "?")
    gib = gpu.memory_total_bytes / (1024 * MIB)
    return (str(gpu.index), gpu.name, f"{gib:.1f} GiB", f"{nominal_gb(gpu.memory_total_bytes)} GB")


def yaml_value(value: object) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    return str(value)


def short_path(path: object, width: int = 60) -> str:
    """Keep the tail of a long path (the part that tells files apart)."""
    text = str(path)
    if len(text) <= width:
        return text
    return "…" + text[-(width - 1) :]
