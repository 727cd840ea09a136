"""The wizard's phases in the order a run meets them: one model that the TUI's step bar, its
breadcrumbs (the steps passed, done or skipped), each screen's F1 title and the navigation
between screens all read, so that no screen says a step number of its own.

Twelve screens fall into six numbered steps; a step names the phase the user is in when it
holds more than one (`2 Data: Intent`), so every screen's bar names that screen. Some phases are
shown only when needed (setup where something is missing, prepare where no data was given, the
preprocessing steps for a run planned from a dataset file, an existing run folder at start-up).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Step:
    number: int
    name: str


@dataclass(frozen=True)
class Phase:
    id: str
    step: Step
    label: str  # its name in the step bar, within its step
    title: str  # its F1 page's title

    @property
    def bar_label(self) -> str:
        """`2 Data: Intent`; a step of one name says it once (`3 Plan`)."""
        if self.label == self.step.name:
            return f"{self.step.number} {self.label}"
        return f"{self.step.number} {self.step.name}: {self.label}"

    @property
    def f1_title(self) -> str:
        if self.label == self.step.name:
            return f"Step {self.step.number} · {self.title}"
        return f"Step {self.step.number} · {self.step.name}: {self.title}"


BOX = Step(1, "Box")
DATA = Step(2, "Data")
PLAN_STEP = Step(3, "Plan")
AUTOTUNE_STEP = Step(4, "Autotune")
TRAIN = Step(5, "Train")
MONITOR_STEP = Step(6, "Monitor")
STEPS = (BOX, DATA, PLAN_STEP, AUTOTUNE_STEP, TRAIN, MONITOR_STEP)

PROBE = Phase("probe", BOX, "GPUs", "GPUs")
SETUP = Phase("setup", BOX, "Setup", "Setting up the trainer")
INTENT = Phase("intent", DATA, "Intent", "What should the model learn?")
PREPARE = Phase("prepare", DATA, "Prepare", "Prepare your clips")
PATHS = Phase("paths", DATA, "Paths", "Model, data and trainer paths")
PLAN = Phase("plan", PLAN_STEP, "Plan", "The plan")
EXISTING_RUN = Phase("existing_run", PLAN_STEP, "Existing run", "An existing run folder")
PREPROCESS_ONE = Phase("preprocess_one", AUTOTUNE_STEP, "One clip", "Preprocessing one clip")
AUTOTUNE = Phase("autotune", AUTOTUNE_STEP, "Autotune", "Autotune")
PREPROCESS_FULL = Phase("preprocess_full", TRAIN, "Clips", "Preprocessing your clips")
DONE = Phase("done", TRAIN, "Start", "Start training")
MONITOR = Phase("monitor", MONITOR_STEP, "Monitor", "Monitor")
RESULTS = Phase("results", MONITOR_STEP, "Results", "After training · evaluation renders")

# In the order a run meets them (navigation.py follows it).
PHASES = (
    PROBE,
    SETUP,
    INTENT,
    PREPARE,
    PATHS,
    PLAN,
    EXISTING_RUN,
    PREPROCESS_ONE,
    AUTOTUNE,
    PREPROCESS_FULL,
    DONE,
    MONITOR,
    RESULTS,
)
BY_ID = {phase.id: phase for phase in PHASES}
