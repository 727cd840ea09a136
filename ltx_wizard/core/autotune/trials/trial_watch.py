"""What one trial's output showed, and what it comes to: the run's watch (step lines, a failure
and its proof, the trainer's statistics), its steady step time, its peak memory, its outcome."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from ltx_wizard.core.proc.child import ProcessResult
from ltx_wizard.core.autotune.trials.vram_sampler import VramReading
from ltx_wizard.core.trainer_output import line_events as ev
from ltx_wizard.core.trainer_output.failure_cause import FailureCause
from ltx_wizard.core.trainer_output.oom_message import in_use_gib
from ltx_wizard.core.tuning.results import Outcome
from ltx_wizard.core.tuning.trial_config import CONFIRM_STEPS, TRIAL_STEPS

STEP_HISTORY = 1024  # step lines kept per trial (the step time needs the last two steps)


@dataclass
class TrialWatch:
    """What a run's output showed so far: its step lines, a failure and its proof, the statistics."""

    # The latest step lines only: a trainer printing a step line per micro-batch must not grow this.
    steps: deque[tuple[int, float, ev.StepEvent]] = field(default_factory=lambda: deque(maxlen=STEP_HISTORY))
    outcome: Outcome | None = None
    proof: str | None = None
    cause: FailureCause = field(default_factory=FailureCause)  # why a failure failed
    stats: ev.Statistics | None = None
    validated: set[int] = field(default_factory=set)
    # in the trainer's seconds (trial_runner.py TrialRunner._at):
    trained_at: float | None = None  # when rank 0 logged "Starting training" (loads all done)
    validated_at: float | None = None  # when rank 0 logged its last validation samples saved


def steady_step_time(steps: Iterable[tuple[int, float, ev.StepEvent]]) -> float | None:
    """Seconds per step between the last two step lines (rank 0 / unranked only), stamped in
    the trainer's seconds (trial_runner.py TrialRunner._stamp)."""
    seen: dict[int, float] = {}
    for step, t, _ in steps:
        seen.setdefault(step, t)
    ordered = sorted(seen.items())
    if len(ordered) < 2:
        return None
    (s1, t1), (s2, t2) = ordered[-2], ordered[-1]
    return (t2 - t1) / (s2 - s1) if s2 > s1 else None


def trial_peak(reading: VramReading, watch: TrialWatch | None = None) -> tuple[float | None, str]:
    """A run's peak in GiB and where it comes from: an OOM's own "this process has X GiB memory in
    use" when torch stated it, else the larger of the sampler's reading and the trainer's
    "Peak GPU memory" (each misses what the other sees: the sampler polls at 4 Hz, the trainer
    reads nvidia-smi three times a run, whole-device)."""
    if watch is not None and watch.outcome == "oom":
        stated = [v for v in map(in_use_gib, watch.cause.ooms) if v is not None]
        if stated:
            return max(stated), "torch OOM message"
    trainer = watch.stats.peak_gpu_memory_gb if watch is not None and watch.stats else None
    if trainer is not None and (reading.peak_gb is None or trainer > reading.peak_gb):
        return round(trainer, 2), "trainer's report"
    return reading.peak_gb, reading.method


def classify(
    watch: TrialWatch,
    result: ProcessResult,
    output_dir: Path,
    *,
    cancelled: bool,
    idle_timeout_s: float,
    kind: str = "trial",
    validated_at: int = CONFIRM_STEPS,
    log_path: Path | None = None,
) -> tuple[Outcome, str]:
    """A run's outcome and its reason, from what its output showed and how its process ended.

    cancelled: a cancel was requested during the run (TrialRunner.request_cancel)."""
    if cancelled and watch.outcome is None:
        # a cancel holds even for a run that got to its end meanwhile (an OOM or NaN seen
        # before it is still that run's result)
        return "cancelled", "cancelled by the user"
    if kind == "fused":
        if any(s == TRIAL_STEPS for s, _, _ in watch.steps) and watch.outcome != "nan":
            return "ok", f"{TRIAL_STEPS} steps (then the confirmation's validation)"
        kind = "trial"
    if watch.outcome == "oom":
        return "oom", watch.cause.oom()
    if watch.outcome == "nan":
        return "nan", watch.proof or "loss is NaN"
    if cancelled or result.ended_by == "cancelled":
        return "cancelled", "cancelled by the user"
    if result.ended_by == "timeout":
        return "timeout", f"no output for {idle_timeout_s:g} s"
    if result.returncode != 0:
        failure = watch.cause.crash()
        watch.proof = watch.proof or failure
        where = f" (the whole output is in logs/{log_path.name})" if log_path else ""
        detail = failure or f"no error line printed{where}"
        return "crash", f"exit code {result.returncode}: {detail}"
    if kind == "trial":
        if watch.stats is None:
            return "crash", "exit code 0 but no statistics block (training did not finish)"
        return "ok", f"{TRIAL_STEPS} steps, no validation (a trial measures training)"
    samples = list((output_dir / "samples").glob(f"step_{validated_at:06d}_*"))
    if validated_at not in watch.validated and not samples:
        return "crash", f"exit code 0 but no step-{validated_at} validation sample"
    return "ok", f"the step-{validated_at} validation video at the config's own video_dims"
