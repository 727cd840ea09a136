"""Text helpers: GPU rows, key-choice values, paths shortened for narrow terminals."""

from __future__ import annotations

from rich.text import Text
from textual.markup import escape

from ltx_wizard.core.gpu import MIB, GpuInfo
from ltx_wizard.core.text_safety import clean_text
from ltx_wizard.core.tiers import nominal_gb


def safe_markup(value: object) -> str:
    """Any outside text (file names, GPU names, error messages) for a markup-parsing widget:
    control characters dropped, `[...]` escaped so it shows as typed."""
    return escape(clean_text(value))


def plain(value: object) -> Text:
    """Outside text as a Rich Text: never parsed as markup, control characters dropped."""
    return Text(clean_text(value))


def gpu_row(gpu: GpuInfo) -> tuple[str, Text, str, str]:
    if gpu.memory_total_bytes is None:
        return (str(gpu.index), plain(gpu.name), "not reported", "?")
    gib = gpu.memory_total_bytes / (1024 * MIB)
    return (str(gpu.index), plain(gpu.name), f"{gib:.1f} GiB",
            f"{nominal_gb(gpu.memory_total_bytes)} GB")


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
