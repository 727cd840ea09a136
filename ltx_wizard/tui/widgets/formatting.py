"""Text helpers: GPU rows, key-choice values, paths shortened for narrow terminals, and what a
failed autotune baseline means for the full run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.markup import escape

from ltx_wizard.core.base.text_safety import clean_text

if TYPE_CHECKING:
    from ltx_wizard.core.gpu.devices import GpuInfo


def safe_markup(value: object) -> str:
    """Any outside text (file names, GPU names, error messages) for a markup-parsing widget:
    control characters dropped, `[...]` escaped so it shows as typed."""
    return escape(clean_text(value))


def plain(value: object) -> Text:
    """Outside text as a Rich Text: never parsed as markup, control characters dropped."""
    return Text(clean_text(value))


def gpu_row(gpu: GpuInfo) -> tuple[str, Text, str, str]:
    # imported when a GPU is shown, not before the first screen
    from ltx_wizard.core.gpu.tiers import nominal_gb
    from ltx_wizard.core.base.units import bytes_to_gib, gib

    if gpu.memory_total_bytes is None:
        return (str(gpu.index), plain(gpu.name), "not reported", "?")
    return (
        str(gpu.index),
        plain(gpu.name),
        gib(bytes_to_gib(gpu.memory_total_bytes)),
        f"{nominal_gb(gpu.memory_total_bytes)} GB",
    )


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


def baseline_problem(state) -> str | None:
    """Why the planned config is unlikely to train, from autotune's baseline; None if it ran fine."""
    summary = state.summary
    if summary is None:
        return None
    base = next((t for t in summary.trials if t.index == 1), None)
    if base is None or base.outcome == "ok":
        return None
    if base.outcome == "oom":
        from ltx_wizard.core.plan.next_steps import smaller_clips_advice

        from_clips = _from_clips(state)
        return (
            "The baseline trial ran out of GPU memory, so the full run with this config will "
            f"very likely fail the same way. {smaller_clips_advice(from_clips)}; or use a GPU "
            "with more memory."
        )
    return (
        f"The baseline trial ended with '{base.outcome}' ({base.reason or 'see autotune.log'}), "
        "so the full run will very likely fail too: read the trainer's error in autotune.log "
        "and fix it first."
    )


def _from_clips(state) -> bool:
    """The plan's record says who preprocesses the clips: this session's draft, else plan.json."""
    if state.draft is not None:
        return bool(state.draft.record.data.from_clips)
    from ltx_wizard.core.base.errors import WizardError
    from ltx_wizard.core.plan.record import read_record

    try:
        rec = read_record(state.run_dir) if state.run_dir is not None else None
    except (WizardError, OSError):
        return False
    return rec is not None and rec.data.from_clips
