"""The autotune engine: trials on a few linked samples, the rules, the log, the winning config.

Used by `ltx-wizard autotune` and by the TUI's autotune screen. Everything it writes stays inside
the run folder: overfit/.precomputed (links), overfit/trial-N/ and overfit/confirm-N/ (config and
outputs, checkpoints deleted once the trial is recorded), logs/trial-N.log and logs/confirm-N.log
(each run's whole output), autotune.log, and config.yaml patched with the winner's changes only.

The engine holds its settings and the runners it can cancel; what one run works from is a Sweep
(sweep_state.py), handed with its Site to each step: trial_steps.py, confirmation.py, finishing.py,
setup_stop.py; launching.py says how the trainer is started.

Trials measure training only (no validation, no text encoder; see trial_config). The winner then
gets one confirmation run with its own validation, on every GPU of the plan with the real launch;
if that fails, the previous best is confirmed instead. On one GPU, a trial that certainly is the
last one carries the confirmation itself (after its step 40), saving a load. On a multi-GPU box a
LoRA's trials run on one GPU each, side by side when host RAM holds one transformer per trial
(trials/side_by_side.py: a guess run ahead that is dropped is set aside as overfit/trial-N.guess/
and logs/trial-N.guess.log, trial_steps.py), and the confirmation uses them all.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any, Mapping

from ltx_wizard.core.autotune.outputs.results_log import ResultsLog
from ltx_wizard.core.autotune.sweep.best_so_far import planned_text
from ltx_wizard.core.autotune.sweep.confirmation import confirm_winner, needs_confirmation
from ltx_wizard.core.autotune.sweep.finishing import TunedOutputs, tuned_for
from ltx_wizard.core.autotune.sweep.launching import TrialLaunch
from ltx_wizard.core.autotune.sweep.planned_config import planned_model_size, read_planned
from ltx_wizard.core.autotune.sweep.setup_stop import (
    SetupStopped,
    record_setup_stop,
    require_readable_media,
)
from ltx_wizard.core.autotune.sweep.sweep_state import Site, Sweep
from ltx_wizard.core.autotune.sweep.trial_subset import subset_refusal, trial_data
from ltx_wizard.core.autotune.sweep.trial_steps import prune_trial, run_trial, set_aside, starter
from ltx_wizard.core.autotune.trials.session_record import guarded_session
from ltx_wizard.core.proc.child import TEARDOWN_GRACE_S
from ltx_wizard.core.proc.reaper import stop_tagged
from ltx_wizard.core.autotune.trials.trial_runner import TrialRunner
from ltx_wizard.core.autotune.trials.side_by_side import TrialPool
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.stand_in import StandIn
from ltx_wizard.core.gpu.assessment import Assessment
from ltx_wizard.core.gpu.devices import ProbeResult
from ltx_wizard.core.io.workspace import RunFolder, run_lock
from ltx_wizard.core.io.trainer_config import trainer_config
from ltx_wizard.core.io.yaml_patch import load_yaml
from ltx_wizard.core.autotune.events import AutotuneFinished, EventSink, TrialFinished
from ltx_wizard.core.tuning.results import AutotuneSummary, Confirmation, TrialResult
from ltx_wizard.core.tuning.schedule import Candidate, Context, Tuner
from ltx_wizard.core.tuning.trial_config import has_validation_prompts, settings_from_config


class AutotuneEngine:
    def __init__(
        self,
        run_dir: Path,
        *,
        probe: ProbeResult,
        assessment: Assessment,
        trainer_cmd: list[str] | None = None,
        stand_in: StandIn | None = None,  # runs in place of the trainer (the demo's simulator)
        trainer_root: Path | None = None,
        max_trials: int = 5,
        on_event: EventSink | None = None,
        idle_timeout_s: float = 900.0,
        grace_s: float = TEARDOWN_GRACE_S,
        host_ram_gb: float | None = None,
        allow_batch_change: bool = False,
    ) -> None:
        self.folder = RunFolder(Path(run_dir).resolve())
        self.probe = probe
        self.assessment = assessment
        self.trainer_cmd = trainer_cmd
        self.stand_in = stand_in
        self.trainer_root = trainer_root
        self.max_trials = max_trials
        self.on_event: EventSink = on_event or (lambda event: None)
        self.idle_timeout_s = idle_timeout_s
        self.grace_s = grace_s
        self.host_ram_gb = host_ram_gb
        self.allow_batch_change = allow_batch_change  # tuning/batch_rule.py: rescale steps on a win
        self._runners: list[TrialRunner] = []  # every runner a cancel must reach
        self._cancelled = False

    def cancel(self) -> None:
        """Stop the running trial (its process group) and end autotune after it."""
        self._cancelled = True
        for runner in self._runners:
            runner.request_cancel()  # holds even for a run whose process has not started yet

    # -- the run --------------------------------------------------------------------------------
    async def run(self) -> AutotuneSummary:
        with run_lock(self.folder.root):
            # Trials carry a session tag: a reaper stops them if the wizard dies (even SIGKILL).
            with guarded_session(self.folder.overfit, self.folder.root) as tag:
                return await self._run_locked(Site(self.folder, self.on_event, tag))

    async def _run_locked(self, site: Site) -> AutotuneSummary:
        prepared = await self._prepare(site)
        if isinstance(prepared, AutotuneSummary):
            return prepared  # autotune already ended for this run; the log says how
        sweep, launch = prepared
        try:
            try:
                while (cand := sweep.tuner.next()) is not None:
                    await self._trial_step(site, sweep, cand)
            finally:
                if sweep.pool is not None:
                    await sweep.pool.close()
                    await asyncio.to_thread(stop_tagged, site.tag, 2.0)
            return await self._finish(site, sweep, launch)
        except SetupStopped as stop:  # nothing recorded: the next run resumes (setup_stop.py)
            reason = record_setup_stop(sweep.tuner, sweep.log, stop)
            summary = self._summary(launch, sweep.tuner, False, []).model_copy(
                update={"winner": None, "winner_changes": {}, "setup_failure": reason}
            )
            self.on_event(AutotuneFinished(summary=summary))
            return summary

    def _read_plan(self) -> tuple[str, Mapping[str, Any], str]:
        """The planned config's text and data (config.yaml, or the plan a cancel kept aside), and
        its data root; refused before any trial when it cannot be tuned."""
        checked = read_planned(self.folder.config)  # bounded, well-typed, or one refusal
        planned, data = checked.text, checked.data
        before_cancel = planned_text(self.folder, planned)  # config.yaml holds a cancel's best
        if before_cancel is not None:
            planned, data = before_cancel, load_yaml(before_cancel)
        require_readable_media(data, self.folder.config)  # before any trial (setup_stop.py)
        data_root = trainer_config(data).data.preprocessed_data_root
        if not data_root:
            raise UsageError(f"{self.folder.config} has no data.preprocessed_data_root")
        return planned, data, str(data_root)

    async def _prepare(self, site: Site) -> tuple[Sweep, TrialLaunch] | AutotuneSummary:
        """Read the planned config and the log, link the trial samples, size the schedule."""
        planned, data, data_root = self._read_plan()
        keys = trainer_config(data)
        launch = self._launch(keys.model.training_mode or "lora")
        log = ResultsLog(self.folder.autotune_log, root=self.folder.root)
        logged, summary = log.load()
        if summary is not None:
            return summary
        subset, samples = await asyncio.to_thread(
            trial_data,
            self.folder.root,
            Path(data_root),
            keys.training_strategy,
            self.assessment.num_gpus,
        )
        totals = [g.memory_total_mib for g in self.probe.gpus]
        size = planned_model_size(
            self.folder.root,
            keys.model.model_path,
            keys.lora.target_modules,
        )
        slots = launch.slots(size.transformer_params if size else None, self.host_ram_gb)
        ctx = Context(
            tier=self.assessment.tier,
            gpu_total_gb=self._gpu_total_gb(totals),
            transformer_params=size.transformer_params if size else None,
            model=size,
            subset_samples=samples,
            num_gpus=1 if slots else max(self.assessment.num_gpus, 1),
            max_trials=self.max_trials,
            allow_batch_change=self.allow_batch_change,
        )
        own: list[int | None] = [None]  # no slots: one runner on the plan's own launch
        self._runners = [launch.runner(site, slot, totals) for slot in (slots or own)]
        sweep = Sweep(
            planned,
            subset,
            samples,
            log,
            logged,
            log.load_confirmations(),
            totals,
            ctx,
            bool(slots),
            Tuner(settings_from_config(planned), ctx),
            None,
        )
        if len(self._runners) > 1:
            sweep.pool = TrialPool(
                list(self._runners),
                starter(site, sweep),
                lambda cand, ahead_of: set_aside(site, cand, ahead_of),
            )
        log.session_started(self._describe(samples, resumed=bool(logged), parallel=len(self._runners)))
        return sweep, launch

    def _launch(self, training_mode: str) -> TrialLaunch:
        """How this sweep starts the trainer: commands, memory readers, runners."""
        return TrialLaunch(
            self.folder,
            self.probe,
            self.assessment,
            self.trainer_cmd,
            self.stand_in,
            self.trainer_root,
            training_mode,
            self.idle_timeout_s,
            self.grace_s,
        )

    def _gpu_total_gb(self, totals: list[int | None]) -> float | None:
        known = [t for t in totals if t is not None]
        if known:
            return min(known) / 1024
        vram = self.assessment.per_gpu_vram_gb
        return float(vram) if vram else None

    async def _trial_step(self, site: Site, sweep: Sweep, cand: Candidate) -> None:
        """One candidate: reuse its logged result, skip it, or run it; then record and report."""
        tuner, logged = sweep.tuner, sweep.logged
        self._report_skips(sweep, upto=cand.index)
        previous = logged.get(cand.index)
        if previous is not None and previous.change == cand.change:
            tuner.record(previous.model_copy(update={"kept": False}))
            prune_trial(site, cand.index)  # recorded before an interruption that came too soon
            sweep.reported = cand.index
            self.on_event(TrialFinished(result=tuner.results[-1]))
            return
        refusal = subset_refusal(cand.settings.batch_size, sweep.ctx.num_gpus, sweep.samples)
        if self._cancelled:
            result = TrialResult(
                index=cand.index,
                change=cand.change,
                changes=cand.changes,
                outcome="cancelled",
                reason="cancelled by the user",
            )
        elif refusal:
            result = TrialResult(
                index=cand.index, change=cand.change, changes=cand.changes, outcome="skipped", reason=refusal
            )
        elif sweep.pool is not None:
            result = await sweep.pool.result(tuner, cand)
        else:
            # The last trial also validates (fused), unless its confirmation is already logged.
            fused = (
                not sweep.side_by_side
                and cand.index not in sweep.logged_confirmations
                and has_validation_prompts(sweep.planned)
                and tuner.is_last(cand)
            )
            result = await run_trial(site, sweep, self._runners[0], cand, fused=fused)
        recorded = tuner.record(result)
        sweep.log.trial(recorded)
        prune_trial(site, cand.index)
        sweep.reported = cand.index
        self.on_event(TrialFinished(result=recorded))

    async def _finish(self, site: Site, sweep: Sweep, launch: TrialLaunch) -> AutotuneSummary:
        """Confirm the winner, patch it into config.yaml, write the summary record."""
        tuner, planned = sweep.tuner, sweep.planned
        self._report_skips(sweep, upto=len(tuner.results) + 1)
        confirmations: list[Confirmation] = []
        if tuner.stop_reason != "cancelled" and needs_confirmation(sweep):
            runner = launch.runner(site, None, sweep.totals)  # every GPU, the real launch
            self._runners.append(runner)
            confirmations = await confirm_winner(
                site, sweep, runner, max(1, self.assessment.num_gpus), lambda: self._cancelled
            )
        outputs = TunedOutputs(site, self._runners[0].command.time_scale, self.assessment.num_gpus)

        def summarize(patched: bool) -> AutotuneSummary:
            return self._summary(launch, tuner, patched, confirmations)

        if tuner.stop_reason == "cancelled" or (confirmations and confirmations[-1].outcome == "cancelled"):
            tuner.stop_reason = "cancelled"
            # as the cancel dialog says: config.yaml keeps the best so far (finishing.py)
            summary = outputs.keep_best_on_cancel(tuner, planned, confirmations, summarize)
            self.on_event(AutotuneFinished(summary=summary))
            return summary  # no summary record: the next run resumes where this one stopped
        tuned = tuned_for(tuner, planned)
        note = outputs.write_tuned(tuner, tuned, confirmations)
        summary = summarize(tuned is not None).model_copy(update={"schedule_note": note})
        outputs.rerender_plan(tuner, planned, tuned, summary)
        sweep.log.summary(summary)
        self.on_event(AutotuneFinished(summary=summary))
        return summary

    # -- reports --------------------------------------------------------------------------------
    def _report_skips(self, sweep: Sweep, upto: int) -> None:
        """Skipped trials before `upto`, in order: logged (once) and reported."""
        for result in sweep.tuner.results[sweep.reported : upto - 1]:
            if result.outcome == "skipped":
                if result.index not in sweep.logged:
                    sweep.log.trial(result)
                self.on_event(TrialFinished(result=result))
        sweep.reported = max(sweep.reported, upto - 1)

    def _summary(
        self, launch: TrialLaunch, tuner: Tuner, patched: bool, confirmations: list[Confirmation]
    ) -> AutotuneSummary:
        try:
            argv, line = launch.tuned_run()
        except Exception as exc:  # no checkout found: the summary still stands
            argv, line = [], f"(launch command unavailable: {exc})"
        return AutotuneSummary(
            trials=list(tuner.results),
            winner=tuner.winner,
            config_patched=patched,
            winner_changes=dict(tuner.winner_changes),
            launch_command=argv,
            launch_line=line,
            stop_reason=tuner.stop_reason,
            confirmations=confirmations,
        )

    def _describe(self, samples: int, resumed: bool, parallel: int) -> str:
        gpus = ", ".join(g.name for g in self.probe.gpus) or "no GPU"
        what = "resumed" if resumed else "new"
        side = f"; single-GPU trials, {parallel} side by side" if parallel > 1 else ""
        return (
            f"{what}; {self.assessment.tier.display_name}; {gpus}; {samples} trial sample(s)"
            f"{side}; pid {os.getpid()}"
        )
