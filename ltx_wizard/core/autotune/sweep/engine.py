"""The autotune engine: trials on a few linked samples, the rules, the log, the winning config.

Used by `ltx-wizard autotune` and by the TUI's autotune screen. Everything it writes stays inside
the run folder: overfit/.precomputed (links), overfit/trial-N/ and overfit/confirm-N/ (config and
outputs, checkpoints deleted once the trial is recorded), logs/trial-N.log and logs/confirm-N.log
(each run's whole output), autotune.log, and config.yaml patched with the winner's changes only.

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
from dataclasses import dataclass
from pathlib import Path

from ltx_wizard.core.gpu.assessment import Assessment
from ltx_wizard.core.autotune.sweep.best_so_far import planned_text
from ltx_wizard.core.autotune.sweep.confirmation import ConfirmationSteps
from ltx_wizard.core.tuning.events import (
    AutotuneFinished, AutotuneSummary, Confirmation,
    EventSink, TrialFinished, TrialResult,
)
from ltx_wizard.core.tuning.headroom import ModelSize, model_size
from ltx_wizard.core.autotune.trials.orphans import TAG_ENV, guarded_session, stop_tagged
from ltx_wizard.core.autotune.sweep.finishing import TunedOutputs
from ltx_wizard.core.autotune.sweep.planned_config import read_planned
from ltx_wizard.core.autotune.trials.preflight import require_runnable
from ltx_wizard.core.autotune.trials.process import TEARDOWN_GRACE_S
from ltx_wizard.core.autotune.outputs.results_log import ResultsLog
from ltx_wizard.core.tuning.schedule import Candidate, Context, Tuner
from ltx_wizard.core.autotune.sweep.setup_stop import SetupStopped, SetupStops, require_readable_media
from ltx_wizard.core.autotune.sweep.trial_data import trial_data
from ltx_wizard.core.tuning.trial_config import has_validation_prompts, settings_from_config
from ltx_wizard.core.autotune.trials.side_by_side import (
    TrialPool, host_available_gb, trial_slots,
)
from ltx_wizard.core.autotune.trials.runner import TrialCommand, TrialRunner
from ltx_wizard.core.autotune.sweep.trial_steps import TrialRuns
from ltx_wizard.core.autotune.sweep.trial_data import subset_refusal
from ltx_wizard.core.autotune.trials.vram_sampler import NullBackend, make_backend
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.stand_in import StandIn
from ltx_wizard.core.gpu.devices import ProbeResult
from ltx_wizard.core.launch.command import LaunchPlan, build_launch, join_args
from ltx_wizard.core.io.run_meta import read_run_meta
from ltx_wizard.core.io.workspace import RunFolder, run_lock
from ltx_wizard.core.io.yaml_patch import get_dotted, load_yaml

def _model_size(run_dir: Path, checkpoint: str | None,
                target_modules: object) -> ModelSize | None:
    """The headroom model's sizes: from the checkpoint facts the plan recorded (plan.json), so
    the file is not read again; from its header when the record is missing or names another
    file (config.yaml edited since)."""
    if not checkpoint:
        return None
    targets = target_modules if isinstance(target_modules, list) else None
    try:
        from ltx_wizard.core.plan.record import read_record

        rec = read_record(run_dir)
        if rec is not None and rec.checkpoint is not None and str(rec.checkpoint.path) == str(
                checkpoint):
            return model_size(rec.checkpoint, targets)
    except Exception:  # a damaged record: the header below still gives the sizes
        pass
    try:
        from ltx_wizard.core.inputs.checkpoint import inspect_checkpoint

        return model_size(inspect_checkpoint(checkpoint), targets)
    except Exception:  # headroom then falls back to the 22B estimate; the trial still decides
        return None


@dataclass
class _Sweep:
    """What one autotune run works from, read once by _prepare()."""

    planned: str  # the planned config's text
    subset: Path  # the linked trial samples
    log: ResultsLog
    logged: dict[int, TrialResult]  # trials an interrupted run already ended
    logged_confirmations: dict[int | None, Confirmation]
    totals: list[int | None]  # MiB per GPU
    samples: int
    ctx: Context
    side_by_side: bool  # single-GPU trials on several GPUs at once
    tuner: Tuner
    pool: TrialPool | None
    reported: int = 0  # trials reported so far (skips are reported in order)


class AutotuneEngine(ConfirmationSteps, SetupStops, TunedOutputs, TrialRuns):
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
        self.on_event = on_event or (lambda event: None)
        self.idle_timeout_s = idle_timeout_s
        self.grace_s = grace_s
        self.host_ram_gb = host_ram_gb
        self.allow_batch_change = allow_batch_change  # tuning/batch_rule.py: rescale steps on a win
        self._runner: TrialRunner | None = None
        self._runners: list[TrialRunner] = []
        self._training_mode = "lora"
        self._cancelled = False
        self._fused: dict[int, Confirmation] = {}  # confirmations carried by their trial
        self._tag = ""  # the trial session tag (trials/orphans.py), set while run() holds the lock

    def cancel(self) -> None:
        """Stop the running trial (its process group) and end autotune after it."""
        self._cancelled = True
        for runner in self._runners:
            runner.request_cancel()  # holds even for a run whose process has not started yet

    # -- set-up -------------------------------------------------------------------------------
    def _command(self, config_for_launch: Path, slot: int | None = None) -> TrialCommand:
        """The plan's launch (slot None) or a single-GPU launch on GPU number `slot`."""
        device = self._device(slot) if slot is not None else None
        stand_in, scratch = self.stand_in, self.folder.overfit
        if stand_in is not None and not self.trainer_cmd:
            prefix, env = stand_in.trial_command(scratch, slot, self.assessment.num_gpus)
            if device is not None:
                env["CUDA_VISIBLE_DEVICES"] = device
            return TrialCommand(prefix, None, env, time_scale=stand_in.time_scale,
                                step_clock=stand_in.step_clock(env))
        if self.trainer_cmd:
            env = stand_in.memory_env(scratch, slot) if stand_in is not None else {}
            if device is not None:
                env["CUDA_VISIBLE_DEVICES"] = device
            return TrialCommand(list(self.trainer_cmd), None, env)
        if slot is not None:
            root = self.trainer_root or self._checkout_root()
            launch = build_launch(root, config_for_launch, 1, self._training_mode, device)
            return TrialCommand(launch.trial_prefix(), launch.cwd, dict(launch.env))
        launch = self._real_launch(config_for_launch)
        return TrialCommand(launch.trial_prefix(), launch.cwd, dict(launch.env))

    def _real_launch(self, config: Path) -> LaunchPlan:
        """The plan's launch of `config` with the user's trainer (accelerate form on several GPUs)."""
        root = self.trainer_root or self._checkout_root()
        accelerate = self.folder.accelerate_config
        return build_launch(root, config, self.assessment.num_gpus, self._training_mode,
                            self.probe.cuda_visible_devices,
                            accelerate if accelerate.exists() else None)

    def _checkout_root(self) -> Path:
        from ltx_wizard.core.inputs.checkout import find_checkout

        recorded = read_run_meta(self.folder.root).trainer_root
        return find_checkout(str(recorded) if recorded else None).root

    def _device(self, slot: int) -> str:
        """CUDA_VISIBLE_DEVICES for one GPU: its UUID when known (immune to device ordering)."""
        gpu = self.probe.gpus[slot]
        return gpu.uuid or str(gpu.index)

    def _backend_factory(self, command: TrialCommand, slot: int | None = None):
        gpus = list(self.probe.gpus)  # MIG instances are sampled through their own handle (UUID)
        if slot is not None:
            gpus = [gpus[slot]]
        if self.stand_in is not None:  # it reports its own memory, where the command told it
            stand_in, env = self.stand_in, dict(command.env)
            return lambda: stand_in.memory_reader(env, len(gpus))
        if self.probe.source in ("csv", "simulated"):  # the GPUs are not on this machine
            return lambda: NullBackend(len(gpus))
        return lambda: make_backend(self.probe.source, gpus)

    # -- the run --------------------------------------------------------------------------------
    async def run(self) -> AutotuneSummary:
        with run_lock(self.folder.root):
            # Trials carry a session tag: a reaper stops them if the wizard dies (even SIGKILL).
            with guarded_session(self.folder.overfit, self.folder.root) as self._tag:
                return await self._run_locked()

    async def _run_locked(self) -> AutotuneSummary:
        sweep = await self._prepare()
        if isinstance(sweep, AutotuneSummary):
            return sweep  # autotune already ended for this run; the log says how
        try:
            try:
                while (cand := sweep.tuner.next()) is not None:
                    await self._trial_step(sweep, cand)
            finally:
                if sweep.pool is not None:
                    await sweep.pool.close()
                    await asyncio.to_thread(stop_tagged, self._tag, 2.0)
            return await self._finish(sweep)
        except SetupStopped as stop:  # nothing recorded: the next run resumes (setup_stop.py)
            return self._setup_stopped(sweep.tuner, sweep.planned, sweep.log, stop)

    async def _prepare(self) -> _Sweep | AutotuneSummary:
        """Read the planned config and the log, link the trial samples, size the schedule."""
        checked = read_planned(self.folder.config)  # bounded, well-typed, or one refusal
        planned, data = checked.text, checked.data
        before_cancel = planned_text(self.folder, planned)  # config.yaml holds a cancel's best
        if before_cancel is not None:
            planned, data = before_cancel, load_yaml(before_cancel)
        require_readable_media(data, self.folder.config)  # before any trial (setup_stop.py)
        self._training_mode = str(get_dotted(data, "model.training_mode", "lora") or "lora")
        data_root = get_dotted(data, "data.preprocessed_data_root", None)
        if not data_root:
            raise UsageError(f"{self.folder.config} has no data.preprocessed_data_root")
        log = ResultsLog(self.folder.autotune_log, root=self.folder.root)
        logged, summary = log.load()
        if summary is not None:
            return summary
        subset, samples = await asyncio.to_thread(
            trial_data, self.folder.root, Path(data_root),
            get_dotted(data, "training_strategy", None), self.assessment.num_gpus)
        totals = [g.memory_total_mib for g in self.probe.gpus]
        known = [t for t in totals if t is not None]
        gpu_total_gb = (min(known) / 1024) if known else (
            float(self.assessment.per_gpu_vram_gb) if self.assessment.per_gpu_vram_gb else None)
        size = _model_size(self.folder.root, get_dotted(data, "model.model_path", None),
                           get_dotted(data, "lora.target_modules", None))
        slots = self._trial_slots(size.transformer_params if size else None)
        ctx = Context(tier=self.assessment.tier, gpu_total_gb=gpu_total_gb,
                      transformer_params=size.transformer_params if size else None, model=size,
                      subset_samples=samples, num_gpus=1 if slots else max(self.assessment.num_gpus, 1),
                      max_trials=self.max_trials, allow_batch_change=self.allow_batch_change)
        own: list[int | None] = [None]  # no slots: one runner on the plan's own launch
        self._runners = [self._make_runner(slot, totals) for slot in (slots or own)]
        self._runner = self._runners[0]
        pool = TrialPool(self._runners, self._start(planned, subset),
                         self._set_aside) if len(self._runners) > 1 else None
        self._samples = samples
        log.session_started(self._describe(samples, resumed=bool(logged), parallel=len(self._runners)))
        return _Sweep(planned, subset, log, logged, log.load_confirmations(), totals, samples, ctx,
                      bool(slots), Tuner(settings_from_config(planned), ctx), pool)

    async def _trial_step(self, sweep: _Sweep, cand: Candidate) -> None:
        """One candidate: reuse its logged result, skip it, or run it; then record and report."""
        tuner, logged = sweep.tuner, sweep.logged
        sweep.reported = self._report_skips(tuner, sweep.log, logged, sweep.reported, upto=cand.index)
        previous = logged.get(cand.index)
        if previous is not None and previous.change == cand.change:
            tuner.record(previous.model_copy(update={"kept": False}))
            self._prune(cand.index)  # recorded before an interruption that came too soon
            sweep.reported = cand.index
            self.on_event(TrialFinished(result=tuner.results[-1]))
            return
        refusal = subset_refusal(cand.settings.batch_size, sweep.ctx.num_gpus, sweep.samples)
        if self._cancelled:
            result = TrialResult(index=cand.index, change=cand.change, changes=cand.changes,
                                 outcome="cancelled", reason="cancelled by the user")
        elif refusal:
            result = TrialResult(index=cand.index, change=cand.change, changes=cand.changes,
                                 outcome="skipped", reason=refusal)
        elif sweep.pool is not None:
            result = await sweep.pool.result(tuner, cand)
        else:
            # The last trial also validates (fused), unless its confirmation is already logged.
            fused = (not sweep.side_by_side and cand.index not in sweep.logged_confirmations
                     and has_validation_prompts(sweep.planned) and tuner.is_last(cand))
            assert self._runner is not None  # set by _prepare
            result = await self._run_trial(self._runner, cand, sweep.planned, sweep.subset, fused=fused)
        recorded = tuner.record(result)
        sweep.log.trial(recorded)
        self._prune(cand.index)
        sweep.reported = cand.index
        self.on_event(TrialFinished(result=recorded))

    async def _finish(self, sweep: _Sweep) -> AutotuneSummary:
        """Confirm the winner, patch it into config.yaml, write the summary record."""
        tuner, planned = sweep.tuner, sweep.planned
        self._report_skips(tuner, sweep.log, sweep.logged, sweep.reported, upto=len(tuner.results) + 1)
        confirmations: list[Confirmation] = []
        if tuner.stop_reason != "cancelled":
            confirmations = await self._confirm(tuner, planned, sweep.subset, sweep.log,
                                                sweep.logged_confirmations, sweep.totals)
        if tuner.stop_reason == "cancelled" or (confirmations and confirmations[-1].outcome == "cancelled"):
            tuner.stop_reason = "cancelled"
            # as the cancel dialog says: config.yaml keeps the best so far (finishing.py)
            summary = self._keep_best_on_cancel(tuner, planned, confirmations)
            self.on_event(AutotuneFinished(summary=summary))
            return summary  # no summary record: the next run resumes where this one stopped
        tuned = self._tuned(tuner, planned)
        note = self._write_tuned(tuner, planned, tuned, confirmations)
        summary = self._summary(tuner, planned, tuned is not None, confirmations)
        summary = summary.model_copy(update={"schedule_note": note})
        self._rerender_plan(tuner, planned, tuned, summary)
        sweep.log.summary(summary)
        self.on_event(AutotuneFinished(summary=summary))
        return summary

    # -- trials -------------------------------------------------------------------------------
    def _trial_slots(self, params: float | None) -> list[int]:
        ram = self.host_ram_gb
        if ram is None:
            ram = (self.stand_in.host_gb_per_gpu * len(self.probe.gpus) if self.stand_in is not None
                   else host_available_gb())
        return trial_slots(len(self.probe.gpus), self.assessment.num_gpus, self._training_mode,
                           params, ram)

    def _make_runner(self, slot: int | None, totals: list[int | None]) -> TrialRunner:
        command = self._command(self.folder.config, slot)
        require_runnable(command.prefix, command.cwd, {**os.environ, **command.env})
        command.env[TAG_ENV] = self._tag
        return TrialRunner(command, self._backend_factory(command, slot), self.on_event,
                           idle_timeout_s=self.idle_timeout_s, grace_s=self.grace_s,
                           total_mib=totals if slot is None else [totals[slot]],
                           gpus=tuple(range(len(self.probe.gpus))) if slot is None else (slot,))

    def _report_skips(self, tuner, log, logged, reported: int, upto: int) -> int:
        for result in tuner.results[reported:upto - 1]:
            if result.outcome == "skipped":
                if result.index not in logged:
                    log.trial(result)
                self.on_event(TrialFinished(result=result))
        return max(reported, upto - 1)

    def _launch(self) -> tuple[list[str], str]:
        """The command that trains the tuned config: what the run's launch.sh runs (run.json's
        launch, written by the plan), else the plan's launch for the real trainer."""
        spec = read_run_meta(self.folder.root).launch
        if spec is not None:
            from ltx_wizard.core.launch.script import spec_line

            env = [f"{k}={v}" for k, v in sorted(spec.env.items())]
            return (["env", *env, *spec.argv] if env else list(spec.argv)), spec_line(spec)
        if self.stand_in is not None or self.trainer_cmd:
            command = self._command(self.folder.config)
            argv = [*command.prefix, str(self.folder.config), command.quiet_flag]
            return argv, join_args(argv)
        launch = self._real_launch(self.folder.config)
        return launch.argv_with_env(), launch.shell_line()

    def _summary(self, tuner: Tuner, planned: str, patched: bool,
                 confirmations: list[Confirmation]) -> AutotuneSummary:
        try:
            argv, line = self._launch()
        except Exception as exc:  # no checkout found: the summary still stands
            argv, line = [], f"(launch command unavailable: {exc})"
        return AutotuneSummary(trials=list(tuner.results), winner=tuner.winner, config_patched=patched,
                               winner_changes=dict(tuner.winner_changes), launch_command=argv,
                               launch_line=line, stop_reason=tuner.stop_reason,
                               confirmations=confirmations)

    def _describe(self, samples: int, resumed: bool, parallel: int) -> str:
        gpus = ", ".join(g.name for g in self.probe.gpus) or "no GPU"
        what = "resumed" if resumed else "new"
        side = f"; single-GPU trials, {parallel} side by side" if parallel > 1 else ""
        return (f"{what}; {self.assessment.tier.display_name}; {gpus}; {samples} trial sample(s)"
                f"{side}; pid {os.getpid()}")
