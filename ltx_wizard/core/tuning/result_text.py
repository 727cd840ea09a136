"""How a trial's result and a confirmation read as text: the words plan.md, autotune.log, the CLI
and the screens share (autotune/outputs/presenter.py builds the live rows on top of these)."""

from __future__ import annotations

from ltx_wizard.core.base.units import UNIT
from ltx_wizard.core.tuning.results import Confirmation, TrialResult

# What a person reads for each outcome (the log keeps the outcome's own word: it is parsed back).
OUTCOME_LABEL = {
    "ok": "ok",
    "oom": "OOM",
    "nan": "NaN loss",
    "crash": "crashed",
    "timeout": "timed out",
    "cancelled": "cancelled",
    "skipped": "skipped",
}


def outcome_label(outcome: str) -> str:
    return OUTCOME_LABEL.get(outcome, outcome)


def amount(value: float | None, unit: str, digits: int = 2, missing: str = "—") -> str:
    """`1.23 s`, `2.50 s/step`; `missing` when there is no reading (memory: units.gib)."""
    return missing if value is None else f"{value:.{digits}f} {unit}"


def step_text(result: TrialResult) -> str:
    return amount(result.step_time_s, "s/step", missing="step time n/a")


def peak_text(result: TrialResult) -> str:
    return amount(result.peak_vram_gb, f"{UNIT} peak", 1, missing="peak n/a")


def confirmation_line(conf: Confirmation) -> str:
    """The confirmation's own line: which trial's config, on how many GPUs, what happened."""
    what = f"trial {conf.trial}'s config" if conf.trial is not None else "the planned config"
    how = f"{conf.gpus} GPUs" if conf.gpus > 1 else "1 GPU"
    if conf.fused:
        how += ", after its step 40"
    line = (
        f"confirm  {what + ' (' + how + ')':<44} {conf.outcome:<9} "
        f"{'':>12}  {amount(conf.peak_vram_gb, UNIT + ' peak', 1, missing='-'):>14}"
    )
    return f"{line.rstrip()}  ({conf.reason})" if conf.reason else line.rstrip()
