"""The winner into the run folder: config.yaml patched and marked, autotune.json written, and
plan.md rendered again from the records.

The engine's finishing step, an object of its own (the sweep's Site, the trials' time scale and the
plan's GPUs). When an allowed batch change moved the effective batch, the rescaled steps and the
new duration estimate are said (a log line the CLI prints and the Autotune screen's log shows)
before config.yaml is written.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from ltx_wizard.core.tuning import duration as dur
from ltx_wizard.core.autotune.sweep.best_so_far import keep_on_cancel
from ltx_wizard.core.autotune.events import LogLine
from ltx_wizard.core.tuning.results import AutotuneSummary, Confirmation
from ltx_wizard.core.plan.refresh import refresh_plan_md
from ltx_wizard.core.tuning.trial_config import settings_from_config
from ltx_wizard.core.autotune.outputs.tuned_config import TunedConfig, tuned_config
from ltx_wizard.core.tuning.tune_record import TuneRecord, write_tune_record
from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.io.run_meta import read_run_meta
from ltx_wizard.core.io.workspace import atomic_write_text
from ltx_wizard.core.io.yaml_patch import load_yaml

if TYPE_CHECKING:
    from ltx_wizard.core.autotune.sweep.sweep_state import Site
    from ltx_wizard.core.tuning.duration import Duration
    from ltx_wizard.core.tuning.schedule import Tuner

SCHEDULE_PREFIX = "ltx-wizard: schedule:"


def tuned_for(tuner: Tuner, planned: str) -> TunedConfig | None:
    """The winner's config (None: no winner, or the plan itself won)."""
    if tuner.winner is None or not tuner.winner_changes:
        return None
    return tuned_config(planned, tuner.winner_changes, settings_from_config(planned), tuner.settings)


@dataclass(frozen=True)
class TunedOutputs:
    """Writes what the sweep found into the run folder."""

    site: Site
    time_scale: float  # the trials' commands' (a stand-in runs compressed): durations scale back
    gpus: int  # the plan's GPUs per node

    def _duration(self, tuner: Tuner, text: str, confirmations: list[Confirmation]) -> Duration | None:
        if tuner.best is None:
            return None
        conf = confirmations[-1] if confirmations else None
        gpus = max(1, self.gpus) * max(1, read_run_meta(self.site.folder.root).nodes)
        return dur.estimate(load_yaml(text), tuner.best, tuner.results, conf, self.time_scale, gpus)

    def write_tuned(self, tuner: Tuner, tuned: TunedConfig | None, confirmations: list[Confirmation]) -> str:
        """Write config.yaml (when there is a change); returns the schedule note ('' if none)."""
        if tuned is None:
            return ""
        note = ""
        if tuned.steps:
            old, new = tuned.steps
            before, after = tuned.effective
            estimate = self._duration(tuner, tuned.text, confirmations)
            note = (
                f"batch x accumulation {before} -> {after} per GPU (allowed), so "
                f"optimization.steps {old} -> {new} keeps the samples seen as planned"
                + (f"; estimated duration about {dur.clock(estimate.total_s)}" if estimate else "")
            )
            self.site.on_event(LogLine(text=f"{SCHEDULE_PREFIX} {note}"))
        folder = self.site.folder
        atomic_write_text(folder.config, tuned.text, root=folder.root)
        return note

    def keep_best_on_cancel(
        self,
        tuner: Tuner,
        planned: str,
        confirmations: list[Confirmation],
        summarize: Callable[[bool], AutotuneSummary],
    ) -> AutotuneSummary:
        """A cancel keeps the best so far: config.yaml written and marked, plan.md rendered
        again, as for a winner; the plan kept aside so a resume tunes from it (best_so_far.py).
        `summarize(patched)`: the engine's summary of the run."""
        tuned = tuned_for(tuner, planned)

        def patch(tuner: Tuner, planned: str) -> bool:
            if tuned is None:
                return False
            self.write_tuned(tuner, tuned, confirmations)
            return True

        patched = keep_on_cancel(self.site.folder, tuner, planned, patch)
        summary = summarize(patched)
        if patched:
            self.rerender_plan(tuner, planned, tuned, summary)
        return summary

    def rerender_plan(
        self, tuner: Tuner, planned: str, tuned: TunedConfig | None, summary: AutotuneSummary
    ) -> None:
        """autotune.json written, then plan.md rendered from the run's records (core/plan);
        a failure is one line in the log, never a lost result."""
        text = tuned.text if tuned is not None else planned
        rec = TuneRecord(
            summary=summary,
            config_text=text,
            steps=tuned.steps if tuned is not None else None,
            effective=tuned.effective if tuned is not None else (1, 1),
            duration=self._duration(tuner, text, summary.confirmations),
        )
        folder, on_event = self.site.folder, self.site.on_event
        try:
            write_tune_record(folder.root, rec)
        except (WizardError, OSError) as exc:
            on_event(
                LogLine(text=f"ltx-wizard: autotune.json not written: {getattr(exc, 'message', None) or exc}")
            )
            return
        if not folder.plan.is_file():
            return
        problem = refresh_plan_md(folder.root)
        if problem is not None:
            on_event(LogLine(text=f"ltx-wizard: {problem}"))
