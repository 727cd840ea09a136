"""Run one trial: the trainer as a process group, its output parsed live, GPU memory sampled.

Step time is measured from the arrival times of successive step lines (the trainer's statistics
include setup and validation). An OOM or NaN line stops the process group at once rather than
waiting minutes for its teardown.
"""

from __future__ import annotations

import asyncio
import math
import shlex
import time
from pathlib import Path
from typing import Callable

from ltx_wizard.core.autotune.events import (
    EventSink,
    LogLine,
    TrialPhase,
    TrialProgress,
    TrialStarted,
    VramUpdate,
)
from ltx_wizard.core.tuning.results import Confirmation, Outcome, TrialResult
from ltx_wizard.core.proc.child import TEARDOWN_GRACE_S, ChildProcess, OutputLine, ProcessResult
from ltx_wizard.core.tuning.schedule import Candidate
from ltx_wizard.core.tuning.trial_config import CONFIRM_STEPS, FUSED_STEPS, TRIAL_STEPS
from ltx_wizard.core.autotune.trials.trial_command import TrialCommand
from ltx_wizard.core.autotune.trials.log_file import TrialLog
from ltx_wizard.core.autotune.trials.phase import PhaseTracker
from ltx_wizard.core.autotune.trials.trial_watch import TrialWatch, classify, steady_step_time, trial_peak
from ltx_wizard.core.autotune.trials.vram_sampler import VramBackend, VramReading, VramSampler
from ltx_wizard.core.base.stand_in import TRAINING_STARTED, step_moment, validated_moment
from ltx_wizard.core.trainer_output import line_events as ev
from ltx_wizard.core.trainer_output.line_parser import TrainerLogParser

VRAM_UPDATE_S = 0.5
NOT_STARTED = "cancelled before it started"  # the reason of a run a cancel refused (claim)


def _footer(result: ProcessResult | None) -> str:
    if result is None:
        return "the wizard stopped before the trial ended"
    if not result.pid:
        return "ended (cancelled) before the trainer started"
    code = result.returncode
    how = f"exit code {code}" if code is None or code >= 0 else f"killed by signal {-code}"
    return f"ended ({result.ended_by}), {how}, after {result.wall_s:.1f} s"


class TrialRunner:
    def __init__(
        self,
        command: TrialCommand,
        backend_factory: Callable[[], VramBackend],
        on_event: EventSink,
        *,
        idle_timeout_s: float = 900.0,
        grace_s: float = TEARDOWN_GRACE_S,
        total_mib: list[int | None] | None = None,
        gpus: tuple[int, ...] = (),
        session: str | None = None,
    ) -> None:
        self.command = command
        self.session = session  # the autotune session's tag (core/proc/tags.py)
        self.backend_factory = backend_factory
        self.on_event = on_event
        self.idle_timeout_s = idle_timeout_s
        self.grace_s = grace_s
        self.total_mib = total_mib or []
        self.gpus = tuple(gpus)  # which of the probe's GPUs its runs use (events say so)
        self.process: ChildProcess | None = None  # the current run's, None between runs
        # One run at a time holds the runner (claim); a cancel requested before its process
        # exists still holds: that run never starts it. Both reset when the run ends.
        self._claimed = False
        self._cancelled = False
        self.last_confirmation: Confirmation | None = None  # after a "confirm" or "fused" run
        # the exception line of a run that exited with an error before any step line (the engine
        # asks sweep/setup_stop.py whether it was a setup failure rather than the trial's result)
        self.before_step_one: str | None = None

    def request_cancel(self) -> None:
        """Cancel the current run, or the next one if none has claimed the runner yet."""
        self._cancelled = True
        if self.process is not None and self.process.running:
            asyncio.ensure_future(self.process.stop("cancelled"))

    async def cancel(self) -> None:
        self.request_cancel()
        if self.process is not None:
            await self.process.stop("cancelled")

    def claim(self) -> bool:
        """Take the runner for one run; False when a cancel came first (that run is then over,
        nothing started). Again True for the run that holds it; release() when it is over."""
        if self._claimed:
            return True
        if self._cancelled:
            self._cancelled = False  # it was meant for this run, not for the one after
            return False
        self._claimed = True
        return True

    def not_started(self, cand: Candidate) -> TrialResult:
        """The result of a run a cancel refused: no process, no log, no output."""
        self.before_step_one, self.last_confirmation = None, None
        return TrialResult(
            index=cand.index,
            change=cand.change,
            changes=cand.changes,
            outcome="cancelled",
            reason=NOT_STARTED,
        )

    async def run(
        self,
        cand: Candidate,
        config_path: Path,
        output_dir: Path,
        log_path: Path | None = None,
        kind: str = "trial",
        ahead_of: int | None = None,
    ) -> TrialResult:
        """Run one trial; its whole output goes to `log_path` (logs/trial-N.log) when given.

        kind: "trial" (training only), "confirm" (a few steps, then one validation video) or
        "fused" (a trial that then validates once at step FUSED_STEPS). ahead_of: the trial
        whose keeping this run guesses (side by side), None for a trial the tuner asked for."""
        owned = not self._claimed  # else the caller claimed it, and releases it when done
        if not self.claim():
            return self.not_started(cand)
        try:
            return await self._run(cand, config_path, output_dir, log_path, kind, ahead_of)
        finally:
            if owned:
                self.release()

    def release(self) -> None:
        """The run is over: the next one starts afresh (a cancel sent during this one is spent)."""
        self._claimed = self._cancelled = False
        self.process = None

    async def _run(
        self,
        cand: Candidate,
        config_path: Path,
        output_dir: Path,
        log_path: Path | None,
        kind: str,
        ahead_of: int | None,
    ) -> TrialResult:
        watch = TrialWatch()
        parser = TrainerLogParser()
        trial_log = TrialLog(log_path) if log_path is not None else None
        self.last_confirmation = None
        total = {"trial": TRIAL_STEPS, "confirm": CONFIRM_STEPS, "fused": FUSED_STEPS}[kind]
        if kind != "confirm":  # a confirmation is announced by the sweep (ConfirmationStarted)
            self._announce(cand, config_path, total, ahead_of)

        # a confirmation or fused trial validates once, after its last step (tuning/trial_config.py)
        tracker = PhaseTracker(total, validate_at=None if kind == "trial" else total)

        def phase(changed: str | None) -> None:
            if changed is not None:
                self.on_event(
                    TrialPhase(
                        index=cand.index, phase=changed, label=tracker.label, confirmation=kind == "confirm"
                    )
                )

        def handle(events: list[ev.TrainerEvent]) -> None:
            for event in events:
                self._apply(cand, watch, event)
                phase(tracker.feed(event))

        def on_line(line: OutputLine) -> None:
            if trial_log is not None:
                trial_log.write(line)
            self.on_event(LogLine(text=line.text))
            handle(parser.feed(line.text, line.t))

        argv = [*self.command.prefix, str(config_path), self.command.quiet_flag]
        if trial_log is not None:  # before anything starts: an unwritable log folder fails here
            trial_log.open(f"trial {cand.index} ({cand.change}): {shlex.join(argv)}")
        phase(tracker.start())
        result, reading = await self._watch_process(argv, on_line, trial_log)
        handle(parser.finish())
        phase(tracker.end())
        early = result.ended_by == "exit" and result.returncode != 0 and not watch.steps
        self.before_step_one = watch.cause.crash() if early and watch.outcome is None else None
        if kind != "trial":
            self.last_confirmation = self._confirmation(
                cand, watch, result, output_dir, kind, trial_peak(reading, watch)[0], log_path
            )
        return self._trial_result(cand, watch, result, reading, output_dir, kind, log_path)

    def _announce(self, cand: Candidate, config_path: Path, total: int, ahead_of: int | None) -> None:
        self.on_event(
            TrialStarted(
                index=cand.index,
                change=cand.change,
                total_steps=total,
                config_path=str(config_path),
                ahead_of=ahead_of,
                gpus=self.gpus,
            )
        )

    async def _watch_process(
        self, argv: list[str], on_line: Callable[[OutputLine], None], trial_log: TrialLog | None
    ) -> tuple[ProcessResult, VramReading]:
        """Start the trial's process with VRAM sampling around it; never leave it running."""
        sampler = VramSampler(self.backend_factory())
        await asyncio.to_thread(sampler.start)
        self.process = ChildProcess(
            argv,
            session=self.session,
            cwd=self.command.cwd,
            env=self.command.env,
            on_line=on_line,
            idle_timeout_s=self.idle_timeout_s,
            grace_s=self.grace_s,
        )
        ticker = asyncio.ensure_future(self._vram_ticker(sampler))
        result = None
        try:
            if self._cancelled:  # cancelled while the run set up: the trainer never starts
                result = ProcessResult(None, "cancelled", 0.0, time.time(), 0, "cancelled")
            else:
                await self.process.start()
                if self._cancelled:  # cancelled while it started (stop() found no process yet)
                    await self.process.stop("cancelled")
                assert self.process.pid is not None  # started
                sampler.track(self.process.pid)
                result = await self.process.wait()
        finally:
            ticker.cancel()
            reading = await asyncio.to_thread(sampler.stop)
            if self.process is not None and self.process.running:
                await self.process.stop("cancelled")
            if trial_log is not None:
                trial_log.close(_footer(result))
        return result, reading

    def _trial_result(
        self,
        cand: Candidate,
        watch: TrialWatch,
        result: ProcessResult,
        reading: VramReading,
        output_dir: Path,
        kind: str,
        log_path: Path | None,
    ) -> TrialResult:
        outcome, reason = classify(
            watch,
            result,
            output_dir,
            cancelled=self._cancelled,
            idle_timeout_s=self.idle_timeout_s,
            kind=kind,
            log_path=log_path,
        )
        step = steady_step_time(watch.steps)
        last = watch.steps[-1][2] if watch.steps else None
        peak, method = trial_peak(reading, watch)
        return TrialResult(
            index=cand.index,
            change=cand.change,
            changes=cand.changes,
            outcome=outcome,
            step_time_s=None if step is None or outcome != "ok" else round(step, 3),
            peak_vram_gb=peak,
            vram_method=method,
            trainer_peak_gb=watch.stats.peak_gpu_memory_gb if watch.stats else None,
            trainer_step_time_s=last.time_per_step_s if last else None,
            wall_s=round(result.wall_s, 2),
            reason=reason,
            proof=watch.proof,
        )

    def _stamp(self, event: ev.StepEvent) -> float:
        return self._at(step_moment(event.step), event.t)

    def _at(self, moment: str, arrived: float) -> float:
        """When a line was printed, in the trainer's seconds: by the command's clock where it has
        one (a stand-in's own time), else when the line arrived, scaled back."""
        clock = self.command.step_clock
        printed = clock(moment) if clock is not None else None
        return printed if printed is not None else arrived * self.command.time_scale

    def _apply(self, cand: Candidate, watch: TrialWatch, event: ev.TrainerEvent) -> None:
        watch.cause.feed(event)
        if isinstance(event, ev.StepEvent):
            if event.rank not in (None, 0):
                return
            watch.steps.append((event.step, self._stamp(event), event))
            self.on_event(
                TrialProgress(
                    index=cand.index,
                    step=event.step,
                    total=event.total,
                    loss=None if math.isnan(event.loss) else event.loss,
                    step_time_s=event.time_per_step_s,
                )
            )
            if math.isnan(event.loss):
                self._fail(watch, "nan", f"loss is NaN at step {event.step}")
        elif isinstance(event, ev.NanLoss):
            self._fail(watch, "nan", f"loss is NaN at step {event.step}")
        elif isinstance(event, ev.OomError):
            self._fail(watch, "oom", event.line)
        elif isinstance(event, ev.Statistics):
            watch.stats = event
        elif isinstance(event, ev.ValidationSaved):
            watch.validated.add(event.step)
            if event.rank in (None, 0):
                watch.validated_at = self._at(validated_moment(event.step), event.t)
        elif isinstance(event, ev.TrainerPhase):
            if event.phase == "training" and event.rank in (None, 0) and watch.trained_at is None:
                watch.trained_at = self._at(TRAINING_STARTED, event.t)

    def _fail(self, watch: TrialWatch, outcome: Outcome, proof: str) -> None:
        if watch.outcome is not None:
            return
        watch.outcome, watch.proof = outcome, proof.strip()
        if self.process is not None:  # stop now: an OOM teardown or NaN run is wasted GPU time
            asyncio.ensure_future(self.process.stop("oom"))

    def _confirmation(
        self,
        cand: Candidate,
        watch: TrialWatch,
        result: ProcessResult,
        output_dir: Path,
        kind: str,
        peak_gb: float | None,
        log_path: Path | None = None,
    ) -> Confirmation:
        step = FUSED_STEPS if kind == "fused" else CONFIRM_STEPS
        trained = any(s == TRIAL_STEPS for s, _, _ in watch.steps)
        outcome: Outcome
        if kind == "fused" and not trained and watch.outcome is not None:
            outcome, reason = "skipped", "the trial itself failed before validating"
        else:
            outcome, reason = classify(
                watch,
                result,
                output_dir,
                cancelled=self._cancelled,
                idle_timeout_s=self.idle_timeout_s,
                kind="confirm",
                validated_at=step,
                log_path=log_path,
            )
            if outcome == "oom":
                reason = f"CUDA out of memory within {step} steps and the step-{step} validation"
        since = (
            watch.validated_at - watch.trained_at
            if watch.validated_at is not None and watch.trained_at is not None
            else None
        )
        return Confirmation(
            trial=cand.index,
            outcome=outcome,
            peak_vram_gb=peak_gb,
            reason=reason,
            proof=watch.proof,
            wall_s=round(result.wall_s, 2),
            fused=kind == "fused",
            changes=dict(cand.config_changes),
            trained_to_validated_s=None if since is None else round(since, 3),
        )

    async def _vram_ticker(self, sampler: VramSampler) -> None:
        while True:
            await asyncio.sleep(VRAM_UPDATE_S)
            self.on_event(VramUpdate(used_mib=sampler.latest(), total_mib=self.total_mib, gpus=self.gpus))
