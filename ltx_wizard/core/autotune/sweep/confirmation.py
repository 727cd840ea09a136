"""The winner's confirmation: one run of its config with its own validation, on every GPU of
the plan; when it fails, fall back to the previous winner and confirm that instead.

A part of AutotuneEngine (engine.py), kept apart so each file holds one phase of the run.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

from ltx_wizard.core.tuning.events import Confirmation, ConfirmationFinished, ConfirmationStarted
from ltx_wizard.core.autotune.trials.orphans import stop_tagged
from ltx_wizard.core.autotune.outputs.results_log import ResultsLog
from ltx_wizard.core.tuning.schedule import Candidate, Tuner
from ltx_wizard.core.tuning.trial_config import confirmation_config_text, has_validation_prompts
from ltx_wizard.core.autotune.trials.leftovers import prune_trial_outputs
from ltx_wizard.core.autotune.trials.runner import TrialRunner
from ltx_wizard.core.autotune.sweep.trial_data import subset_refusal
from ltx_wizard.core.io.safe_fs import check_inside
from ltx_wizard.core.io.workspace import atomic_write_text
from ltx_wizard.core.io.yaml_patch import load_yaml

if TYPE_CHECKING:
    from ltx_wizard.core.gpu.assessment import Assessment
    from ltx_wizard.core.tuning.events import EventSink
    from ltx_wizard.core.io.workspace import RunFolder


class ConfirmationSteps:
    """Needs the engine's folder, assessment, on_event, runners, samples and session tag."""

    folder: RunFolder
    assessment: Assessment
    on_event: EventSink
    _runners: list[TrialRunner]
    _fused: dict[int, Confirmation]
    _samples: int
    _cancelled: bool
    _tag: str
    _make_runner: Callable[[int | None, list[int | None]], TrialRunner]  # engine.py
    _stop_on_setup: Callable[[TrialRunner, Mapping[str, Any], str], None]  # SetupStops

    async def _confirm(self, tuner: Tuner, planned: str, subset: Path, log: ResultsLog,
                       logged: dict[int | None, Confirmation],
                       totals: list[int | None]) -> list[Confirmation]:
        """Confirm the winner with its own validation; on failure fall back and confirm again."""
        done: list[Confirmation] = []
        if tuner.winner is None or not has_validation_prompts(planned):
            return done
        runner = self._make_runner(None, totals)
        self._runners.append(runner)
        while tuner.winner is not None:
            winner = tuner.winner
            conf = logged.get(winner) or self._fused.get(winner)
            if conf is not None and conf.outcome == "skipped":
                conf = None  # the fused trial failed before validating: confirm on its own
            if conf is None or conf.changes != tuner.winner_changes:
                conf = await self._confirm_run(runner, tuner, planned, subset)
            if logged.get(winner) is not conf:
                log.confirmation(conf)
            self.on_event(ConfirmationFinished(confirmation=conf))
            done.append(conf)
            if conf.ok or conf.outcome == "cancelled":
                break
            failed = tuner.winner
            if tuner.fallback() is None:
                tuner.stop_reason += (f"; the confirmation of trial {failed} failed ({conf.reason}) "
                                      "and there is no earlier config to fall back to")
                tuner.best, tuner.winner_changes, tuner.settings = None, {}, tuner.base
                break
            tuner.stop_reason += (f"; the confirmation of trial {failed} failed ({conf.reason}): "
                                  f"fell back to trial {tuner.winner}")
        return done

    async def _confirm_run(self, runner: TrialRunner, tuner: Tuner, planned: str,
                           subset: Path) -> Confirmation:
        winner = tuner.winner
        gpus = max(1, self.assessment.num_gpus)
        if self._cancelled:
            return Confirmation(trial=winner, outcome="cancelled", reason="cancelled by the user",
                                gpus=gpus, changes=dict(tuner.winner_changes))
        # The confirmation uses every GPU: the sharded loader then needs batch x GPUs samples.
        refusal = subset_refusal(tuner.settings.batch_size, gpus, self._samples)
        if refusal:
            return Confirmation(trial=winner, outcome="skipped", reason=refusal, gpus=gpus,
                                changes=dict(tuner.winner_changes))
        self.on_event(ConfirmationStarted(trial=winner, gpus=gpus))
        output_dir = self.folder.overfit / f"confirm-{winner}"
        output_dir.mkdir(parents=True, exist_ok=True)
        config_path = output_dir / "config.yaml"
        atomic_write_text(config_path, confirmation_config_text(
            planned, tuner.winner_changes, subset, output_dir), root=self.folder.root)
        cand = Candidate(winner or 0, "confirmation", f"confirm trial {winner}", {}, tuner.settings,
                         dict(tuner.winner_changes))
        log_path = check_inside(self.folder.root, self.folder.logs / f"confirm-{winner}.log")
        await runner.run(cand, config_path, output_dir, log_path, kind="confirm")
        await asyncio.to_thread(stop_tagged, self._tag, 2.0)
        self._stop_on_setup(runner, load_yaml(config_path.read_text("utf-8")),
                            f"the confirmation of trial {winner}")
        conf = runner.last_confirmation
        assert conf is not None
        try:
            prune_trial_outputs(output_dir, self.folder.root)
        except OSError:
            pass  # a leftover checkpoint is disk, not a wrong result
        return conf.model_copy(update={"gpus": gpus})
