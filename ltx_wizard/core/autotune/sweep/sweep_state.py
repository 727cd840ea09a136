"""What one autotune run works from (`Sweep`, read once when it starts) and where it works
(`Site`: the run folder, the event sink, the trial session tag). The engine builds both and hands
them to each step (trial_steps.py, confirmation.py, finishing.py) as arguments: no step reads
another's state."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ltx_wizard.core.autotune.outputs.results_log import ResultsLog
    from ltx_wizard.core.autotune.trials.side_by_side import TrialPool
    from ltx_wizard.core.io.workspace import RunFolder
    from ltx_wizard.core.autotune.events import EventSink
    from ltx_wizard.core.tuning.results import Confirmation, TrialResult
    from ltx_wizard.core.tuning.schedule import Context, Tuner


@dataclass(frozen=True)
class Site:
    """Where a sweep runs and whom it tells: everything it writes stays in `folder`."""

    folder: RunFolder
    on_event: EventSink
    tag: str  # the trial session tag (trials/session_record.py): every trial process carries it


@dataclass
class Sweep:
    """One autotune run: the plan and the trial data it tunes on, what an interrupted run already
    recorded, the tuner that decides, and what the run has found so far."""

    planned: str  # the planned config's text
    subset: Path  # the linked trial samples (trial_subset.py)
    samples: int  # usable samples in `subset`
    log: ResultsLog
    logged: dict[int, TrialResult]  # trials an interrupted run already ended
    logged_confirmations: dict[int | None, Confirmation]
    totals: list[int | None]  # MiB per GPU
    ctx: Context
    side_by_side: bool  # single-GPU trials on several GPUs at once
    tuner: Tuner
    pool: TrialPool | None  # several runners: trials side by side (None: one at a time)
    reported: int = 0  # trials reported so far (skips are reported in order)
    # confirmations a trial carried itself (a fused last trial), by trial number
    fused: dict[int, Confirmation] = field(default_factory=dict)
