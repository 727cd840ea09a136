"""The simulated time of each step line (LTX_WIZARD_SIM_STEP_CLOCK), which the wizard's autotune
reads as the time that line was printed: the same whatever else the machine is doing.

A real trainer's step time is measured from when its lines arrive. The simulator only sleeps
1/speed of the times it reports, so measured that way its step times carry the machine's load
(a busy machine makes a trial look slower), and its trials must sleep for the measurement to mean
anything. Its own clock (clock.py) says exactly how long the simulated steps took.
"""

from __future__ import annotations

import os
from pathlib import Path

STEP_CLOCK_ENV = "LTX_WIZARD_SIM_STEP_CLOCK"


class StepStamps:
    """Written by the simulated trainer: one `step seconds` line per step line, before that line is
    printed (so whoever has read the line finds its time); each process starts the file afresh."""

    def __init__(self, path: str | None) -> None:
        self.path = Path(path) if path else None
        if self.path is not None:
            self.path.write_text("", encoding="ascii")

    def stamp(self, moment: str, seconds: float) -> None:
        """`moment` as core/base/stand_in.py names it (step_moment, TRAINING_STARTED, ...)."""
        if self.path is None:
            return
        with open(self.path, "a", encoding="ascii") as handle:  # one short line: an atomic append
            handle.write(f"{moment} {seconds:.6f}\n")


class StepClockReader:
    """The wizard's side (a core step clock, autotune/trials/trial_command.py TrialCommand): the simulated
    seconds at which the trainer reached `moment` (printed its line), or None when it has not."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def __call__(self, moment: str) -> float | None:
        try:  # a few lines per trial, read again each time: a new trial's process starts it afresh
            text = self.path.read_text(encoding="ascii", errors="replace")
        except OSError:
            return None
        found = None
        for line in text.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == moment:
                try:
                    found = float(parts[1])
                except ValueError:
                    continue
        return found
