"""How a trial, a confirmation and the winner read, wherever they are shown.

One owner for the words and numbers of a result: autotune.log's lines, the CLI's progress and
report, the Autotune screen's table and status, the Done screen's winner. Each surface picks the
form it needs (a fixed-width log line, table cells, a sentence); the facts come from here.
"""

from __future__ import annotations

from dataclasses import dataclass

from ltx_wizard.core.base.units import UNIT, gib
from ltx_wizard.core.tuning.result_text import (  # callers import some of these from here
    amount,
    confirmation_line,
    outcome_label,
    peak_text,
    step_text,
)
from ltx_wizard.core.autotune.events import (
    AutotuneEvent,
    AutotuneFinished,
    ConfirmationFinished,
    ConfirmationStarted,
    TrialFinished,
    TrialPhase,
    TrialProgress,
    TrialStarted,
    VramUpdate,
)
from ltx_wizard.core.tuning.results import AutotuneSummary, Confirmation, TrialResult

KEPT_MARK = "✓"
REJECTED_MARK = "✗"  # ran, and the rules did not keep its change
CONFIRM_MARK = "✔"


@dataclass(frozen=True)
class Row:
    """One line of the Autotune screen's table: a trial or a confirmation."""

    key: str
    cells: tuple[str, str, str, str, str, str, str]  # #, change, outcome, s/step, peak, kept, reason


COLUMNS = ("#", "Change", "Outcome", "s/step", "Peak", "Kept", "Reason")
_VERDICTS = ("kept: ", "not kept: ", "reverted: ", "not run: ")


def reason_text(result: TrialResult) -> str:
    """Why the trial was kept or rejected, from the rules' decision (its reason when none)."""
    return result.decision or result.reason


def reason_cell(result: TrialResult) -> str:
    """The Reason cell: the decision without the verdict word the Kept cell already shows."""
    text = reason_text(result)
    for verdict in _VERDICTS:
        if text.startswith(verdict):
            return text[len(verdict) :]
    return text


def why_text(result: TrialResult) -> str:
    """How the trial ended and what the rules made of it: `40 steps ...; kept: 12% faster`."""
    decision = result.decision
    if result.outcome == "skipped" and decision.endswith(result.reason):
        return decision  # "not run: <reason>": the reason once, not twice
    return "; ".join(t for t in dict.fromkeys((result.reason, decision)) if t)


def kept_cell(result: TrialResult) -> str:
    if result.kept:
        return KEPT_MARK
    return REJECTED_MARK if result.ran and result.outcome != "cancelled" else ""


def table_order(number_cell: str) -> tuple[int, int]:
    """Where a row goes, from its # cell: trials by number (side by side, trial 6 can finish
    before trials 2-5 are reported), then the confirmations in the order they came."""
    text = str(number_cell).strip()
    return (0, int(text)) if text.isdigit() else (1, 0)


def trial_row(result: TrialResult) -> Row:
    return Row(
        str(result.index),
        (
            str(result.index),
            result.change,
            outcome_label(result.outcome),
            amount(result.step_time_s, "s"),
            gib(result.peak_vram_gb),
            kept_cell(result),
            reason_cell(result),
        ),
    )


def ahead_note(event: TrialStarted) -> str:
    """Side by side, a run that guesses the trial before it is kept says so (trials/side_by_side.py)."""
    return "" if event.ahead_of is None else f"run ahead, in case trial {event.ahead_of} is kept"


def started_text(event: TrialStarted) -> str:
    """`trial 3: batch_size 1 -> 2 (run ahead, in case trial 2 is kept)`."""
    note = ahead_note(event)
    return f"trial {event.index}: {event.change}" + (f" ({note})" if note else "")


def running_row(event: TrialStarted) -> Row:
    return Row(
        str(event.index), (str(event.index), event.change, "running…", "—", "—", "", ahead_note(event))
    )


def dropped_row(started: TrialStarted, event: TrialPhase) -> Row:
    """A guess run ahead that its trial did not need: neither failed nor rejected."""
    reason = event.label.removeprefix("dropped: ")
    return Row(str(event.index), (str(event.index), started.change, "dropped", "—", "—", "", reason))


def _confirm_what(trial: int | None, gpus: int) -> str:
    return f"confirm trial {trial} ({gpus} GPU{'s' if gpus > 1 else ''}, with validation)"


def confirmation_row(conf: Confirmation) -> Row:
    return Row(
        f"confirm-{conf.trial}",
        (
            CONFIRM_MARK,
            _confirm_what(conf.trial, conf.gpus),
            outcome_label(conf.outcome),
            "—",
            gib(conf.peak_vram_gb),
            KEPT_MARK if conf.ok else REJECTED_MARK,
            conf.reason,
        ),
    )


def confirming_row(event: ConfirmationStarted) -> Row:
    return Row(
        f"confirm-{event.trial}",
        (CONFIRM_MARK, _confirm_what(event.trial, event.gpus), "running…", "—", "—", "", ""),
    )


def winner_of(summary: AutotuneSummary) -> TrialResult | None:
    return next((t for t in summary.trials if t.index == summary.winner), None)


def patched_text(summary: AutotuneSummary) -> str:
    return "config.yaml patched" if summary.config_patched else "config.yaml unchanged"


def winner_brief(summary: AutotuneSummary) -> str:
    """`trial 3 (batch_size 1 -> 2)`: the winner and its change; "" when there is none."""
    if summary.winner is None:
        return ""
    win = winner_of(summary)
    return f"trial {summary.winner}" + (f" ({win.change})" if win else "")


def winner_sentence(summary: AutotuneSummary) -> str:
    """The Done screen's line: the winner with its measured step time and peak, or why none."""
    win = winner_of(summary)
    if win is None:
        return "no trial succeeded; the planned config is used as is."
    patched = "patched into config.yaml" if summary.config_patched else "config.yaml unchanged"
    return f"winner trial {win.index} ({win.change}), {step_text(win)}, {peak_text(win)}; {patched}"


def cancel_promise(best: TrialResult | None) -> str:
    """What cancelling does now, as the engine does it (sweep/engine.py _finish, sweep/best_so_far.py)."""
    head = "Stop the running trial and end autotune? Finished trials stay in autotune.log. "
    tail = " Resume autotune later goes on from there; finished trials are not run again."
    if best is None or not best.changes:
        return head + "No change has been kept yet, so config.yaml stays as planned." + tail
    return (
        head + f"config.yaml gets the best so far, trial {best.index} ({best.change}), "
        "without the confirmation run that would check its validation." + tail
    )


def human_line(result: TrialResult) -> str:
    """autotune.log's (and the CLI's) fixed-width line for one trial."""
    kept = "kept" if result.kept else ""
    if result.trainer_peak_gb is not None:  # the trainer's own, coarser figure, for comparison
        kept = f"(trainer says {gib(result.trainer_peak_gb, 2)}) {kept}"
    line = (
        f"trial {result.index}  {result.change:<44} {result.outcome:<9} "
        f"{amount(result.step_time_s, 's/step', missing='-'):>12}  "
        f"{amount(result.peak_vram_gb, UNIT + ' peak', 1, missing='-'):>14}  {kept}"
    )
    why = why_text(result)
    return f"{line.rstrip()}  ({why})" if why else line.rstrip()


def elapsed_text(seconds: float) -> str:
    """`12 s`, `4 min 05 s`, `1 h 02 min`: how long a running trial has taken so far."""
    whole = max(0, int(seconds))
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


def clock_text(seconds: float) -> str:
    """`0:07`, `1:05`, `1:02:03`: a running trial's elapsed time as a ticking clock reads."""
    whole = max(0, int(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def vram_readings(readings: dict[int, tuple[int | None, int | None]], event: VramUpdate) -> str:
    """Fold one VRAM reading into `readings` (GPU -> used, total MiB) and say them all, by GPU:
    `VRAM GPU0 46.8/48 GiB  GPU1 12.0/48 GiB`. Side by side, each trial reports its own GPU, so
    the line keeps every GPU's latest reading rather than the last trial's alone."""
    gpus = event.gpus or tuple(range(len(event.used_mib)))
    for gpu, used, total in zip(gpus, event.used_mib, event.total_mib):
        readings[gpu] = (used, total)
    cells = []
    for gpu in sorted(readings):
        used, total = readings[gpu]
        cells.append(f"GPU{gpu} {_vram_cell(used, total)}")
    if len(cells) <= VRAM_EACH_UP_TO:
        return "VRAM " + "  ".join(cells)

    # many GPUs: the fullest one, on one line (8 cells wrap at 80 columns, squeezing the log)
    def fullness(g: int) -> int:
        value = readings[g][0]
        return value if value is not None else -1

    gpu = max(readings, key=fullness)
    return f"VRAM {len(cells)} GPUs, fullest GPU{gpu} {_vram_cell(*readings[gpu])}"


VRAM_EACH_UP_TO = 4  # GPUs named one by one on the VRAM line


def _vram_cell(used: int | None, total: int | None) -> str:
    u = "?" if used is None else f"{used / 1024:.1f}"
    t = "?" if total is None else f"{total / 1024:.0f}"
    return f"{u}/{t} GiB"


def phase_who(event: TrialPhase) -> str:
    return f"confirmation of trial {event.index}" if event.confirmation else f"trial {event.index}"


def phase_line(event: TrialPhase, elapsed_s: float) -> str:
    """The CLI's line when a trial's phase changes: `trial 1: loading the model (12 s)`."""
    return f"{phase_who(event)}: {event.label} ({elapsed_text(elapsed_s)})"


def progress_line(event: AutotuneEvent) -> str | None:
    """The CLI's stderr line for an event; None for events it does not print (log, VRAM) and
    for a phase (phase_line: it needs the time the trial has taken)."""
    if isinstance(event, TrialStarted):
        note = ahead_note(event)
        return f"trial {event.index}: {event.change} ..." + (f" ({note})" if note else "")
    if isinstance(event, TrialProgress):
        return f"  step {event.step}/{event.total}" + (
            "" if event.step_time_s is None else f", {event.step_time_s:.2f} s/step"
        )
    if isinstance(event, TrialFinished):
        return "  " + human_line(event.result)
    if isinstance(event, ConfirmationStarted):
        return f"confirmation of trial {event.trial} on {event.gpus} GPU(s) ..."
    if isinstance(event, ConfirmationFinished):
        return "  " + confirmation_line(event.confirmation)
    if isinstance(event, AutotuneFinished):
        brief = winner_brief(event.summary)
        return f"autotune finished: {'winner ' + brief if brief else 'no winner'}"
    return None
