"""One trial's run and what it leaves: its config and log, its pruned outputs, a dropped guess set
aside (side by side, trials/side_by_side.py) so that the trial taking its number has files of its own.

A part of AutotuneEngine (engine.py), kept apart so each file holds one phase of the run.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

from ltx_wizard.core.autotune.trials.orphans import stop_tagged
from ltx_wizard.core.autotune.trials.log_file import trial_log_path
from ltx_wizard.core.autotune.trials.leftovers import prune_trial_outputs, set_aside_guess
from ltx_wizard.core.autotune.trials.phase import PHASE_LABEL
from ltx_wizard.core.autotune.trials.runner import TrialRunner
from ltx_wizard.core.io.safe_fs import check_inside
from ltx_wizard.core.io.workspace import atomic_write_text
from ltx_wizard.core.io.yaml_patch import load_yaml
from ltx_wizard.core.tuning.events import Confirmation, LogLine, TrialPhase, TrialResult
from ltx_wizard.core.tuning.schedule import Candidate
from ltx_wizard.core.tuning.trial_config import confirmation_config_text, trial_config_text

if TYPE_CHECKING:
    from ltx_wizard.core.tuning.events import EventSink
    from ltx_wizard.core.io.workspace import RunFolder


def dropped_label(ahead_of: int | None, set_aside: str | None) -> str:
    """What a person reads when a guess is dropped: why, and where its files went."""
    why = f"run ahead in case trial {ahead_of} was kept; it was not" if ahead_of is not None \
        else "run ahead; no trial asked for it"
    where = f"; its files are in overfit/{set_aside}/" if set_aside else ""
    return f"{PHASE_LABEL['dropped']}: {why}{where}"


class TrialRuns:
    """Needs the engine's folder, on_event, runners, session tag and SetupStops._stop_on_setup."""

    folder: RunFolder
    on_event: EventSink
    _runners: list[TrialRunner]
    _fused: dict[int, Confirmation]
    _tag: str
    _stop_on_setup: Callable[[TrialRunner, Mapping[str, Any], str], None]  # SetupStops

    def _start(self, planned: str, subset: Path):
        """The pool's way to start a trial (or a guess, ahead_of set) on one runner."""
        return lambda runner, cand, ahead_of: self._run_trial(runner, cand, planned, subset,
                                                              ahead_of=ahead_of)

    async def _run_trial(self, runner: TrialRunner, cand: Candidate, planned: str, subset: Path,
                         fused: bool = False, ahead_of: int | None = None) -> TrialResult:
        if not runner.claim():  # dropped before it began: nothing is written for it
            return runner.not_started(cand)
        try:
            return await self._claimed_run(runner, cand, planned, subset, fused, ahead_of)
        finally:
            runner.release()

    async def _claimed_run(self, runner: TrialRunner, cand: Candidate, planned: str,
                           subset: Path, fused: bool, ahead_of: int | None) -> TrialResult:
        output_dir = self.folder.overfit / f"trial-{cand.index}"
        config_path = output_dir / "config.yaml"
        if fused:
            text = confirmation_config_text(planned, cand.config_changes, subset, output_dir, fused=True)
        else:
            text = trial_config_text(planned, cand.config_changes, subset, output_dir)
        atomic_write_text(config_path, text, root=self.folder.root)
        log_path = check_inside(self.folder.root, trial_log_path(self.folder.logs, cand.index))
        result = await runner.run(cand, config_path, output_dir, log_path,
                                  kind="fused" if fused else "trial", ahead_of=ahead_of)
        if len(self._runners) == 1:  # side by side, the session tag also marks the other trials
            await asyncio.to_thread(stop_tagged, self._tag, 2.0)  # a setsid grandchild left behind
        self._stop_on_setup(runner, load_yaml(text), f"trial {cand.index} ({cand.change})")
        if fused and runner.last_confirmation is not None:
            self._fused[cand.index] = runner.last_confirmation
        return result

    def _prune(self, index: int) -> None:
        """The recorded trial's checkpoints go (a full fine-tune's are ~44 GB); its log stays."""
        try:
            prune_trial_outputs(self.folder.overfit / f"trial-{index}", self.folder.root)
        except OSError as exc:  # the result is recorded; a leftover is worth a line, not a stop
            self.on_event(LogLine(text=f"ltx-wizard: could not delete trial {index}'s "
                                       f"checkpoints: {exc}"))

    def _set_aside(self, cand: Candidate, ahead_of: int | None) -> None:
        """A dropped guess has ended (trials/side_by_side.py): its files move to trial-N.guess, its number
        is free for the real trial N."""
        try:
            name = set_aside_guess(self.folder.overfit, self.folder.logs, cand.index,
                                   self.folder.root)
        except OSError as exc:  # the real trial then writes over it: say so, do not stop
            name = None
            self.on_event(LogLine(text=f"ltx-wizard: could not set aside the dropped guess of "
                                       f"trial {cand.index}: {exc}"))
        else:
            if name is None:
                return  # it never started: nothing was shown or written for it
        label = dropped_label(ahead_of, name)
        self.on_event(TrialPhase(index=cand.index, phase="dropped", label=label))
        self.on_event(LogLine(text=f"ltx-wizard: trial {cand.index} ({cand.change}) {label}"))
