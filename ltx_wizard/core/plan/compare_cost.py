"""What comparing the kept checkpoints will cost (issue 44, Deliver 8), priced before launch from the
plan's own duration estimate (core/tuning/duration.py, the numbers plan.md prints), as GPU seconds
and as a share of the run's training GPU time (steps x s/step x GPUs).

Here in core/plan, not core/compare: plan.md states it before launch, and plan lies below compare
and evaluation in the layers, so the counts those read are mirrored here (a test holds them equal).

- held-out loss (trainer_side/heldout_loss.py, as compare runs it): S held-out samples x K sigmas
  (DEFAULT_SIGMAS, 5); for the base model and each checkpoint 2 x S x K no-grad forward passes
  (held-out and as many training latents; compare always asks for the base's record), so
  2 x S x K x (n + 1) (compare_plan.py's count, a test holds them equal). S is sized to the loss's
  budget: the most of 1..4 (held-out clips permitting) whose share fits LOSS_TARGET, 1 where none
  does (`loss_samples`, the one function plan.md and compare both take it from). With renders the
  loss runs first in the tournament's one process, on its model load: its share is its forward
  passes; `compare --no-render` runs it alone, which adds one model load (`loss_alone_s`). A forward
  pass is duration.py's forward_s: an estimate.
- tournament renders (core/evaluation/tournament.py): the base and each kept checkpoint x one prompt
  per eval category (in- and out-of-distribution, held-out where clips were held out) x one short
  clip each, all rendered by one process (trainer_side/tournament_render.py) with one model load,
  each checkpoint's LoRA swapped in place (a LoRA file: seconds, not priced). A clip is the measured validation video split as duration.py splits it: its denoising
  loop at the tournament's steps (at most 15) and share of the video tokens (half the width and
  height, 17 frames: 3 latent frames of the run's), linear in the tokens where attention is worse
  than linear (an upper estimate), and the rest (decode, save) at its share of the pixels.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Mapping

from ltx_wizard.core.io.trainer_config import trainer_config
from ltx_wizard.core.plan.checkpoint_saves import kept_saves
from ltx_wizard.core.tuning.duration import Duration, forward_s
from ltx_wizard.core.tuning.trial_config import CONFIRM_INFERENCE_STEPS

LOSS_SAMPLE = 4  # trainer_side/heldout_loss.py: --sample's default
LOSS_SIGMAS = 5  # trainer_side/heldout_loss.py: len(DEFAULT_SIGMAS)
# core/evaluation/prompts.py: IN_DIST_COUNT captions, three synthesised out-of-distribution
# scenes (the default), HELD_OUT_MAX held-out rows at most
IN_DIST_PROMPTS, OUT_DIST_PROMPTS, HELD_OUT_PROMPTS = 3, 3, 5
LOSS_TARGET, TOURNAMENT_TARGET = 0.05, 0.15  # issue 44, Deliver 8: shares of training GPU time
# core/evaluation/tournament.py (a test holds them equal): the clip's frames, its inference steps
# at most, its size (eval_config.smaller_dims: half, down to a multiple of 32); the run's size
# where config.yaml sets none (eval_config.video_dims: the trainer's ValidationConfig default)
TOURNAMENT_FRAMES, TOURNAMENT_STEPS, SIZE_STEP = 17, 15, 32
DEFAULT_VIDEO_DIMS = (960, 544, 89)
TOURNAMENT_CATEGORIES = 2  # in- and out-of-distribution; held-out where clips were held out


@dataclass(frozen=True)
class CompareCost:
    checkpoints: int  # kept for comparison
    samples: int  # held-out samples the loss uses, sized to its budget (0: no clips held out, no loss)
    forward_s: float  # one forward pass of one sample
    load_s: float  # one model load (the training run's, with its end: an upper estimate)
    prompts: int  # the tournament's prompts per model (one per category)
    video_s: float | None  # one tournament clip (clip_s)
    train_gpu_s: float  # steps x s/step x GPUs
    sigmas: int = LOSS_SIGMAS
    run_video_s: float | None = None  # one validation video at the run's own settings
    clip: tuple[int, int, int] = (0, 0, 0)  # the tournament clip's width, height, frames
    run_dims: tuple[int, int, int] = DEFAULT_VIDEO_DIMS
    clip_steps: int = TOURNAMENT_STEPS
    most: int = LOSS_SAMPLE  # the samples the held-out clips permit (at most LOSS_SAMPLE): S's ceiling

    @property
    def passes(self) -> int:
        return self.loss_passes(self.checkpoints, self.samples)

    def loss_passes(self, checkpoints: int, samples: int) -> int:
        # heldout_loss.py --base and each checkpoint: held-out and training latents at every sigma
        return 2 * samples * self.sigmas * (checkpoints + 1) if samples and checkpoints else 0

    def loss_s(self, checkpoints: int | None = None, samples: int | None = None) -> float:
        """The loss's forward passes: with renders it runs on the tournament's one model load."""
        n = self.checkpoints if checkpoints is None else checkpoints
        s = self.samples if samples is None else samples
        return self.loss_passes(n, s) * self.forward_s

    def loss_alone_s(self) -> float:
        """`compare --no-render`: the loss in its own process, its own model load added."""
        return self.load_s + self.loss_s() if self.loss_passes(self.checkpoints, self.samples) else 0.0

    def render_s(self, checkpoints: int | None = None) -> float | None:
        if self.video_s is None:
            return None
        n = self.checkpoints if checkpoints is None else checkpoints
        # one model load for the whole tournament (tournament_program.py), then every clip
        return self.load_s + (1 + n) * self.prompts * self.video_s if n else 0.0

    def total_s(self, checkpoints: int | None = None) -> float | None:
        render = self.render_s(checkpoints)
        return None if render is None else self.loss_s(checkpoints) + render

    def share(self, seconds: float | None) -> float | None:
        return None if seconds is None or self.train_gpu_s <= 0 else seconds / self.train_gpu_s

    def most_checkpoints(self, target: float, whole: bool) -> int:
        """The most kept checkpoints (up to those planned) within `target`: 0 where none fits."""
        for n in range(self.checkpoints, 0, -1):
            share = self.share(self.total_s(n) if whole else self.loss_s(n))
            if share is not None and share <= target:
                return n
        return 0

    def most_samples(self) -> int:
        """The most held-out samples (1 up to those the clips permit) whose loss fits LOSS_TARGET:
        0 where not even one does."""
        for s in range(self.most, 0, -1):
            share = self.share(self.loss_s(samples=s))
            if share is not None and share <= LOSS_TARGET:
                return s
        return 0


def kept_count(config: Mapping[str, Any]) -> int:
    """The checkpoints config.yaml keeps (checkpoint_saves.py, as plan.md's kept lines count them)."""
    keys = trainer_config(config)
    steps = keys.optimization.steps
    if not steps:
        return 0
    return len(kept_saves(steps, keys.checkpoints.interval, keys.checkpoints.keep_last_n).steps)


def eval_prompts(held_out: int) -> int:
    return IN_DIST_PROMPTS + OUT_DIST_PROMPTS + min(held_out, HELD_OUT_PROMPTS)


def tournament_prompts(held_out: int) -> int:
    return TOURNAMENT_CATEGORIES + (1 if held_out else 0)


def run_dims(config: Mapping[str, Any]) -> tuple[int, int, int]:
    dims = trainer_config(config).validation.video_dims
    return (
        (int(dims[0]), int(dims[1]), int(dims[2]))
        if dims is not None and len(dims) == 3
        else DEFAULT_VIDEO_DIMS
    )


def clip_dims(dims: tuple[int, int, int]) -> tuple[int, int, int]:
    width, height, frames = dims
    half = (
        max(SIZE_STEP, width // 2 // SIZE_STEP * SIZE_STEP),
        max(SIZE_STEP, height // 2 // SIZE_STEP * SIZE_STEP),
    )
    return half[0], half[1], min(frames, TOURNAMENT_FRAMES)


def _latent_frames(frames: int) -> int:
    return (frames - 1) // 8 + 1  # the VAE's 8x temporal compression, the first frame alone


def clip_s(duration: Duration, dims: tuple[int, int, int]) -> float | None:
    """One tournament clip's seconds, from the measured validation video (module docstring)."""
    if duration.video_s is None:
        return None
    rest = max(duration.video_s - CONFIRM_INFERENCE_STEPS * duration.denoise_step_s, 0.0)
    (w, h, f), (cw, ch, cf) = dims, clip_dims(dims)
    tokens = (cw * ch * _latent_frames(cf)) / (w * h * _latent_frames(f))
    pixels = (cw * ch * cf) / (w * h * f)
    steps = min(duration.inference_steps, TOURNAMENT_STEPS)
    return rest * pixels + steps * duration.denoise_step_s * tokens


def compare_cost(config: Mapping[str, Any], duration: Duration, held_out: int, gpus: int) -> CompareCost:
    """The cost of comparing what config.yaml keeps, with `held_out` clips held out, the loss's
    samples sized to its budget."""
    dims = run_dims(config)
    most = min(held_out, LOSS_SAMPLE)
    cost = CompareCost(
        checkpoints=kept_count(config),
        samples=most,
        forward_s=forward_s(config, duration.step_s),
        load_s=duration.load_s or 0.0,
        prompts=tournament_prompts(held_out),
        video_s=clip_s(duration, dims),
        train_gpu_s=duration.train_s * max(1, gpus),
        run_video_s=duration.config_video_s,
        clip=clip_dims(dims),
        run_dims=dims,
        clip_steps=min(duration.inference_steps, TOURNAMENT_STEPS),
        most=most,
    )
    return replace(cost, samples=max(1, cost.most_samples())) if most else cost


def loss_samples(config: Mapping[str, Any], duration: Duration | None, held_out: int, gpus: int) -> int:
    """The held-out samples the loss uses (heldout_loss.py --sample), as plan.md prices them: the most
    within the loss's budget; LOSS_SAMPLE (clips permitting) where autotune left no duration."""
    if duration is None:
        return min(held_out, LOSS_SAMPLE)
    return compare_cost(config, duration, held_out, gpus).samples
