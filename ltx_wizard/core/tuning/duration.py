"""How long the tuned run will take, from what autotune measured: an estimate, said as one.

training   = the winner's steady-state s/step (between its step-20 and step-40 lines) x steps;
validation = passes x videos on the busiest GPU x the confirmation's measured seconds for its
             one video: from its "Starting training" line to its samples saved, less its steps
             (at CONFIRM_INFERENCE_STEPS inference steps, so a lower figure when the config asks
             for more); every load comes before that line, so none is counted per pass;
load       = a trial's wall time less its 40 steps (model load, quantization, teardown), once.
The simulated trainer sleeps 1/time_scale of its times, so its wall times are scaled back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from ltx_wizard.core.tuning.results import Confirmation, TrialResult
from ltx_wizard.core.tuning.trial_config import (
    CONFIRM_INFERENCE_STEPS,
    CONFIRM_STEPS,
    FUSED_STEPS,
    TRIAL_STEPS,
)
from ltx_wizard.core.io.yaml_patch import get_dotted

# mirrors ltx_trainer/config.py ValidationConfig: the defaults of an absent key
DEFAULT_INTERVAL = 100
DEFAULT_INFERENCE_STEPS = 50


@dataclass(frozen=True)
class Duration:
    steps: int
    step_s: float
    passes: int
    videos: int  # per pass, on the busiest GPU
    video_s: float | None  # per video, as the confirmation measured it
    load_s: float | None
    inference_steps: int = DEFAULT_INFERENCE_STEPS

    @property
    def train_s(self) -> float:
        return self.steps * self.step_s

    @property
    def validation_s(self) -> float:
        return self.passes * self.videos * (self.video_s or 0.0)

    @property
    def total_s(self) -> float:
        return self.train_s + self.validation_s + (self.load_s or 0.0)

    def lines(self) -> list[str]:
        out = [
            f"Estimated duration: about {clock(self.total_s)} (an estimate from the trials, not a promise):",
            f"- training: {self.step_s:.2f} s/step measured x {self.steps} steps = {clock(self.train_s)}",
        ]
        if self.passes == 0:
            out.append("- validation: off (no `validation.interval` or no samples)")
        elif self.video_s is None:
            out.append(
                f"- validation: {self.passes} passes of {self.videos} video(s), not "
                "measured (no confirmation run finished)"
            )
        else:
            out.append(
                f"- validation: {self.passes} passes x {self.videos} video(s) x "
                f"{self.video_s:.0f} s = {clock(self.validation_s)} (as the confirmation "
                f"measured one video at {CONFIRM_INFERENCE_STEPS} inference steps; the "
                f"config's {self.inference_steps} take longer)"
            )
        out.append(f"- load: {clock(self.load_s)}" if self.load_s is not None else "- load: not measured")
        out.append(
            "- The Monitor's ETA during training counts the remaining steps at the pace it "
            "measures; it leaves out the validation passes and the load counted here."
        )
        return out


def clock(seconds: float | None) -> str:
    if seconds is None:
        return "n/a"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"{minutes} min" if minutes else f"{seconds:.0f} s"
    return f"{minutes // 60} h {minutes % 60:02d} min"


def validation_passes(config: Mapping[str, Any], steps: int, gpus: int = 1) -> tuple[int, int]:
    """(passes, videos per pass on the busiest GPU). mirrors ltx_trainer/trainer.py
    LtxvTrainer.train: one pass before step 1 unless skip_initial_validation, then one each time
    global_step hits a multiple of validation.interval; none without an interval or samples.
    _run_distributed_validation deals the videos round-robin over the ranks."""
    val = get_dotted(config, "validation", None) or {}
    samples = len(val.get("samples") or val.get("prompts") or [])
    interval = val.get("interval", DEFAULT_INTERVAL)
    if not samples or not interval:
        return 0, 0
    passes = steps // int(interval) + (0 if val.get("skip_initial_validation", False) else 1)
    videos = samples * int(val.get("videos_per_prompt") or 1)
    return passes, -(-videos // max(1, gpus))


def estimate(
    config: Mapping[str, Any],
    winner: TrialResult,
    trials: Iterable[TrialResult],
    confirmation: Confirmation | None,
    time_scale: float = 1.0,
    gpus: int = 1,
) -> Duration | None:
    steps = get_dotted(config, "optimization.steps", None)
    if winner.step_time_s is None or not isinstance(steps, int):
        return None
    step = winner.step_time_s
    loads = [
        t.wall_s * time_scale - TRIAL_STEPS * t.step_time_s
        for t in trials
        if t.outcome == "ok"
        and t.wall_s
        and t.step_time_s
        and not (confirmation and confirmation.fused and confirmation.trial == t.index)
    ]
    load = max(min(loads), 0.0) if loads else None
    passes, videos = validation_passes(config, steps, gpus)
    video_s = None
    if confirmation is not None and confirmation.ok and confirmation.trained_to_validated_s:
        # measured from the training's start: no model load, quantization or Gemma inside it
        trained = (FUSED_STEPS if confirmation.fused else CONFIRM_STEPS) * step
        video_s = max(confirmation.trained_to_validated_s - trained, 0.0)
    inference = int(
        get_dotted(config, "validation.inference_steps", DEFAULT_INFERENCE_STEPS) or DEFAULT_INFERENCE_STEPS
    )
    return Duration(steps, step, passes, videos, video_s, load, inference)
