"""Where each running trial is now, one row per trial (or confirmation) whose process runs.

Fed the engine's events in order; a row appears with TrialStarted (ConfirmationStarted) and goes
when its result arrives. Side by side, a trial ahead can end before the ones it waits for: its row
then reads "done" with its clock stopped until its result comes, or until another trial takes its
GPU. TrialStarted says which GPUs a trial runs on (the engine's runner knows). Where an event
leaves them out, the tracker follows TrialPool's own rule over `slots`: a new single-GPU trial
takes the first free slot, and a slot is free once its trial's process has ended (the "ended"
phase comes first); with no slots given, every trial is the plan's launch on `launch_gpus`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

from ltx_wizard.core.autotune.outputs.presenter import clock_text
from ltx_wizard.core.autotune.events import (
    AutotuneEvent,
    AutotuneFinished,
    ConfirmationFinished,
    ConfirmationStarted,
    TrialFinished,
    TrialPhase,
    TrialProgress,
    TrialStarted,
)

ENDED = "ended"  # the process is gone, its result comes next (or after the trials before it)
DROPPED = frozenset({"dropped"})  # a guess the pool stopped: no result comes, its row goes
# trials/phase.py PHASE_LABEL's phases in a few words: a row is one line at 80 columns.
SHORT_PHASE = {
    "starting": "starting",
    "text_encoder": "loading text encoder",
    "prompts": "encoding prompts",
    "media": "encoding media",
    "loading": "loading model",
    "quantizing": "quantizing",
    "training": "training",
    "validating": "validating",
    "saving": "saving",
    "finishing": "finishing",
    ENDED: "done",
}
SEP = " · "


def gpus_text(gpus: Sequence[int]) -> str:
    """`GPU 1`, `GPUs 0-3`, `GPUs 0,2`; `GPU ?` when the tracker could not tell."""
    if not gpus:
        return "GPU ?"
    if len(gpus) == 1:
        return f"GPU {gpus[0]}"
    contiguous = list(gpus) == list(range(gpus[0], gpus[0] + len(gpus)))
    return "GPUs " + (f"{gpus[0]}-{gpus[-1]}" if contiguous else ",".join(map(str, gpus)))


def step_part(step: int | None, total: int | None) -> str:
    """`step 12/40`; `step 12` when the run's length is unknown; "" before anything is known."""
    if not total:
        return "" if step is None else f"step {step}"
    return f"step {step or 0}/{total}"


def more_text(rows: Sequence[RunningRow]) -> str:
    """The one line for rows that do not fit: `+3 more running: trials 5, 6, 7`."""
    names = ", ".join(str(r.index) for r in rows)
    return f"+{len(rows)} more running: trial{'s' if len(rows) > 1 else ''} {names}"


@dataclass(frozen=True)
class RunningRow:
    """One running trial as the screen shows it; `parts` are the row's words, in order."""

    key: str  # "trial-3", "confirm-3"
    index: int
    confirmation: bool
    gpus: tuple[int, ...]
    phase: str  # a key of trials/phase.py PHASE_LABEL (or one this tracker does not know)
    step: int | None
    total: int | None
    elapsed_s: float

    @property
    def who(self) -> str:
        if not self.confirmation:
            return f"trial {self.index}"
        return f"confirm trial {self.index}" if self.index else "confirm planned config"

    @property
    def parts(self) -> tuple[str, ...]:
        words = (
            self.who,
            gpus_text(self.gpus),
            SHORT_PHASE.get(self.phase, self.phase),
            step_part(self.step, self.total),
            clock_text(self.elapsed_s),
        )
        return tuple(w for w in words if w)

    @property
    def text(self) -> str:
        """`trial 3 · GPU 1 · training · step 12/40 · 1:05`."""
        return SEP.join(self.parts)


@dataclass
class _Run:
    index: int
    confirmation: bool
    gpus: tuple[int, ...]
    started: float
    total: int | None = None
    step: int | None = None
    phase: str = "starting"
    ended: float | None = None  # when its process ended: its clock stops, its GPU is free


@dataclass
class RunningTrials:
    """The running trials, from the engine's events. slots: the GPUs single-GPU trials take side
    by side (trials/side_by_side.py trial_slots; empty: each trial is the plan's own launch, on `launch_gpus`
    GPUs). The clock is injected so a test (or a snapshot) reads fixed times."""

    slots: Sequence[int] = ()
    launch_gpus: int = 1
    clock: Callable[[], float] = time.monotonic
    _runs: dict[str, _Run] = field(default_factory=dict)

    def feed(self, event: AutotuneEvent) -> bool:
        """Take one event; True when the rows changed (other events change nothing)."""
        if isinstance(event, TrialStarted):
            self._runs.pop(f"trial-{event.index}", None)  # a rerun of the same trial: its slot too
            gpus = tuple(event.gpus) or self._free_gpus()
            for key, run in list(self._runs.items()):  # a done row gives its GPU's line up
                if run.ended is not None and set(run.gpus) & set(gpus):
                    del self._runs[key]
            self._runs[f"trial-{event.index}"] = _Run(
                event.index, False, gpus, self.clock(), total=event.total_steps
            )
        elif isinstance(event, ConfirmationStarted):
            gpus = tuple(range(max(event.gpus, 1)))  # the plan's own launch: every GPU
            # no winner: the runner numbers the planned config's run 0 (sweep/confirmation.py)
            self._runs[f"confirm-{event.trial or 0}"] = _Run(event.trial or 0, True, gpus, self.clock())
        elif isinstance(event, TrialProgress):
            found = self._runs.get(f"trial-{event.index}") or self._runs.get(f"confirm-{event.index}")
            if found is None or found.ended is not None:
                return False
            found.step, found.total = event.step, event.total or found.total
        elif isinstance(event, TrialPhase):
            key = f"{'confirm' if event.confirmation else 'trial'}-{event.index}"
            if key not in self._runs:
                return False
            run = self._runs[key]
            if event.phase in DROPPED:
                del self._runs[key]
            elif run.ended is None:  # nothing the process says after its end changes the row
                run.phase = event.phase
                run.ended = self.clock() if event.phase == ENDED else None
        elif isinstance(event, TrialFinished):
            return self._runs.pop(f"trial-{event.result.index}", None) is not None
        elif isinstance(event, ConfirmationFinished):
            return self._runs.pop(f"confirm-{event.confirmation.trial or 0}", None) is not None
        elif isinstance(event, AutotuneFinished):
            return self.clear()
        else:
            return False
        return True

    def clear(self) -> bool:
        had = bool(self._runs)
        self._runs.clear()
        return had

    def rows(self) -> list[RunningRow]:
        """The running trials, by GPU (a GPU's row stays where it was as its trials change)."""
        now = self.clock()
        rows = [
            RunningRow(
                key,
                r.index,
                r.confirmation,
                r.gpus,
                r.phase,
                r.step,
                r.total,
                (now if r.ended is None else r.ended) - r.started,
            )
            for key, r in self._runs.items()
        ]
        return sorted(rows, key=lambda row: (row.gpus, row.index))

    def _free_gpus(self) -> tuple[int, ...]:
        """The GPUs a trial starting now runs on; () when every slot is taken (never expected)."""
        if not self.slots:
            return tuple(range(max(self.launch_gpus, 1)))
        busy = {
            g for run in self._runs.values() if run.ended is None and not run.confirmation for g in run.gpus
        }
        return next(((s,) for s in self.slots if s not in busy), ())
