"""How long the tuned run will take: one model, built on what the trainer does, fed by what
autotune measured. plan.md, the Monitor (before a step line gives it a pace) and run-summary all
read this one estimate from autotune.json.

The parts, in the order ltx_trainer/trainer.py LtxvTrainer runs them:
load      = process start to "Starting training" plus the end (the final checkpoint save and
            teardown): the confirmation's wall time less its measured training and video
            (`trained_to_validated_s`), so Gemma and the VAE decoder are in it; without a
            confirmation, a trial's wall time less its 40 steps (no Gemma: trials skip it);
steps     = the winner's steady-state s/step (between its step-20 and step-40 lines) x steps;
validation= passes x videos on the busiest GPU x one video at the config's inference_steps;
saves     = one LoRA save per checkpoints.interval (LtxvTrainer.train; the final save is in
            the load's end).
One validation video is measured by the confirmation at CONFIRM_INFERENCE_STEPS. The config asks
for more steps; the measured video is split into its denoising loop and the rest (decode, save)
with the sampler's structure: each inference step runs the transformer once per guidance branch
(validation_runner.py ValidationRunner._generate_sample: positive, CFG's negative, STG's
perturbed pass), and a forward pass is a quarter of a training step with gradient checkpointing
(forward, recomputed forward, backward ~ two forwards), a third without.
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
from ltx_wizard.core.io.trainer_config import older_trainer_keys, trainer_config

# mirrors ltx_trainer/config.py ValidationConfig: the default of an absent key (the interval's is
# the view's own, core/io/trainer_config.py)
DEFAULT_INFERENCE_STEPS = 50
# A LoRA checkpoint is tens to hundreds of MB with its metadata: ~2 s to local disk (an
# estimate, the same figure as the simulated trainer's cost model; not measured by autotune).
LORA_SAVE_S = 2.0


@dataclass(frozen=True)
class Duration:
    steps: int
    step_s: float
    passes: int
    videos: int  # per pass, on the busiest GPU
    video_s: float | None  # per video, as the confirmation measured it (CONFIRM_INFERENCE_STEPS)
    load_s: float | None
    inference_steps: int = DEFAULT_INFERENCE_STEPS
    denoise_step_s: float = 0.0  # one inference step of one video (the sampler's structure)
    saves: int = 0  # interval checkpoint saves (the final one is in the load's end)
    save_s: float | None = LORA_SAVE_S  # None: a full fine-tune's save, not estimated
    load_has_text_encoder: bool = True  # False: a trial's load (trials never load Gemma)

    @property
    def train_s(self) -> float:
        return self.steps * self.step_s

    @property
    def config_video_s(self) -> float | None:
        """One video at the config's inference_steps: the measured video's decode and save, plus
        the config's denoising steps."""
        if self.video_s is None:
            return None
        rest = max(self.video_s - CONFIRM_INFERENCE_STEPS * self.denoise_step_s, 0.0)
        return rest + self.inference_steps * self.denoise_step_s

    @property
    def validation_s(self) -> float:
        return self.passes * self.videos * (self.config_video_s or 0.0)

    @property
    def saves_s(self) -> float:
        return self.saves * (self.save_s or 0.0)

    @property
    def total_s(self) -> float:
        return self.train_s + self.validation_s + self.saves_s + (self.load_s or 0.0)

    def remaining_s(self, from_step: int, interval: int | None, ckpt_interval: int | None) -> float:
        """A launch that starts at `from_step` (a resume): its load, the steps left and the
        passes and saves still to come (a resumed run validates first: skip_initial false)."""
        left = max(0, self.steps - from_step)
        passes = self.passes if not from_step else (left // interval + 1 if interval else 0)
        saves = self.saves if not from_step else (left // ckpt_interval if ckpt_interval else 0)
        video = self.config_video_s or 0.0
        return (
            (self.load_s or 0.0)
            + left * self.step_s
            + min(passes, self.passes) * self.videos * video
            + saves * (self.save_s or 0.0)
        )

    def validate_only_s(self, videos: int, runs: int) -> float | None:
        """Validate-only trainer runs (eval's renders, core/evaluation/job_runner.py): each a load and
        one pass of `videos` at the config's inference steps, stopped after its step-0 renders."""
        video = self.config_video_s
        if video is None or self.load_s is None:
            return None
        return runs * (self.load_s + videos * video)

    def lines(self) -> list[str]:
        return [
            f"Estimated duration: about {clock(self.total_s)} (load, {self.steps} steps, {self.passes} "
            f"validation pass{'es' if self.passes != 1 else ''}, {self.saves} checkpoint "
            f"save{'s' if self.saves != 1 else ''}; an estimate from the trials, not a promise):",
            f"- training: {self.step_s:.2f} s/step measured x {self.steps} steps = {clock(self.train_s)}",
            self._validation_line(),
            self._saves_line(),
            self._load_line(),
            "- The Monitor shows this estimate until the first step line; from then on its ETA "
            "counts the remaining steps at the pace it measures.",
        ]

    def _validation_line(self) -> str:
        if self.passes == 0:
            return "- validation: off (no `validation.interval` or no samples)"
        video = self.config_video_s
        if video is None or self.video_s is None:
            return (
                f"- validation: {self.passes} passes of {self.videos} video(s), not "
                "measured (no confirmation run finished)"
            )
        return (
            f"- validation: {self.passes} passes x {self.videos} video(s) x {video:.0f} s = "
            f"{clock(self.validation_s)} (one video measured at {self.video_s:.0f} s with "
            f"{CONFIRM_INFERENCE_STEPS} inference steps, the config's {self.inference_steps} at "
            f"~{self.denoise_step_s:.1f} s each, from the step time)"
        )

    def _saves_line(self) -> str:
        if not self.saves:
            return "- checkpoint saves: only the final one (counted with the load)"
        if self.save_s is None:
            return f"- checkpoint saves: {self.saves}, not estimated (a full fine-tune's weights)"
        return f"- checkpoint saves: {self.saves} x ~{self.save_s:.0f} s = {clock(self.saves_s)}"

    def _load_line(self) -> str:
        if self.load_s is None:
            return "- load: not measured"
        what = "" if self.load_has_text_encoder else " (a trial's, without the text encoder)"
        return f"- load, final save and shutdown: {clock(self.load_s)}{what}"


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
    val = trainer_config(config).validation  # its interval: the trainer's 100 where absent
    samples = len(val.sample_list())
    interval = val.interval
    if not samples or not interval:
        return 0, 0
    passes = steps // interval + (0 if val.skip_initial_validation else 1)
    # a key of older trainers, not LtxTrainerConfig's: typed apart from today's keys
    videos = samples * (older_trainer_keys(config).validation.videos_per_prompt or 1)
    return passes, -(-videos // max(1, gpus))


def checkpoint_saves(config: Mapping[str, Any], steps: int) -> int:
    """mirrors trainer.py LtxvTrainer.train: a save each time global_step hits a multiple of
    checkpoints.interval; the save after the loop (always) is the load's end."""
    interval = trainer_config(config).checkpoints.interval
    return steps // interval if interval is not None and interval > 0 else 0


def guidance_branches(config: Mapping[str, Any]) -> int:
    """Transformer calls per inference step (ltx-core MultiModalGuider, as the validation
    sampler builds it): the positive prompt, the negative one when a CFG scale is not 1, the
    STG-perturbed one when STG blocks are named with a non-zero STG scale."""
    val = trainer_config(config).validation
    cfg = _or(val.video_cfg_scale, 3.0) != 1.0 or _or(val.audio_cfg_scale, 7.0) != 1.0
    stg = bool(val.stg_blocks) and (
        _or(val.video_stg_scale, 1.0) != 0.0 or _or(val.audio_stg_scale, 1.0) != 0.0
    )
    return 1 + int(cfg) + int(stg)


def _or(value: float | None, default: float) -> float:
    return default if value is None else value


def denoise_step_s(config: Mapping[str, Any], step_s: float) -> float:
    """One inference step of one video: guidance branches x one forward pass. The validation
    video_dims are taken as the training size (the step time is not split by resolution)."""
    return guidance_branches(config) * forward_s(config, step_s)


def forward_s(config: Mapping[str, Any], step_s: float) -> float:
    """One no-grad forward pass of one training-sized sample: a quarter of a training step per
    sample with gradient checkpointing (forward, recomputed forward, backward ~ two forwards), a
    third without. An estimate from the usual FLOP count of a backward pass, not measured."""
    optimization = trainer_config(config).optimization
    batch = optimization.batch_size or 1
    accumulation = optimization.gradient_accumulation_steps or 1
    forwards = 4 if optimization.enable_gradient_checkpointing is not False else 3
    return step_s / (batch * accumulation * forwards)


def _measured_load(
    trials: Iterable[TrialResult], confirmation: Confirmation | None, time_scale: float
) -> tuple[float | None, bool]:
    """(load with the end, whether Gemma is in it): the confirmation's, else the trials' least."""
    if (
        confirmation is not None
        and confirmation.ok
        and confirmation.wall_s
        and confirmation.trained_to_validated_s
    ):
        return max(confirmation.wall_s * time_scale - confirmation.trained_to_validated_s, 0.0), True
    loads = [
        t.wall_s * time_scale - TRIAL_STEPS * t.step_time_s
        for t in trials
        if t.outcome == "ok"
        and t.wall_s
        and t.step_time_s
        and not (confirmation and confirmation.fused and confirmation.trial == t.index)
    ]
    return (max(min(loads), 0.0), False) if loads else (None, False)


def estimate(
    config: Mapping[str, Any],
    winner: TrialResult,
    trials: Iterable[TrialResult],
    confirmation: Confirmation | None,
    time_scale: float = 1.0,
    gpus: int = 1,
) -> Duration | None:
    keys = trainer_config(config)
    steps = keys.optimization.steps
    if winner.step_time_s is None or steps is None:
        return None
    step = winner.step_time_s
    load, with_gemma = _measured_load(trials, confirmation, time_scale)
    passes, videos = validation_passes(config, steps, gpus)
    video_s = None
    if confirmation is not None and confirmation.ok and confirmation.trained_to_validated_s:
        # measured from the training's start: no model load, quantization or Gemma inside it
        trained = (FUSED_STEPS if confirmation.fused else CONFIRM_STEPS) * step
        video_s = max(confirmation.trained_to_validated_s - trained, 0.0)
    inference = keys.validation.inference_steps or DEFAULT_INFERENCE_STEPS
    full = keys.model.training_mode == "full"
    return Duration(
        steps,
        step,
        passes,
        videos,
        video_s,
        load,
        inference,
        denoise_step_s=round(denoise_step_s(config, step), 3),
        saves=checkpoint_saves(config, steps),
        save_s=None if full else LORA_SAVE_S,
        load_has_text_encoder=with_gemma,
    )
