"""What comparing the kept checkpoints will cost (issue 44, Deliver 8), priced before launch from the
plan's own duration estimate (core/tuning/duration.py, the numbers plan.md prints), as GPU seconds
and as a share of the run's training GPU time (steps x s/step x GPUs).

Here in core/plan, not core/compare: plan.md states it before launch, and plan lies below compare
and evaluation in the layers, so the counts those read are mirrored here (a test holds them equal).

- held-out loss (trainer_side/heldout_loss.py, its defaults): S held-out samples (--sample 4, fewer
  where fewer were held out) x K sigmas (DEFAULT_SIGMAS, 5); per checkpoint 2 x S x K no-grad forward
  passes (held-out and as many training latents, LoRA on), plus S x K once for the base model (the
  effect's reference, cached across checkpoints; `--base` adds S x K more for its training-sample
  loss), plus one model load. A forward pass is duration.py's forward_s: an estimate.
- tournament renders: the base and each kept checkpoint x eval's prompts (three categories,
  core/evaluation/prompts.py) x one validation video each at the config's inference steps, each
  checkpoint a validate-only trainer run with its own load (as eval renders, Duration.validate_only_s).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from ltx_wizard.core.io.trainer_config import trainer_config
from ltx_wizard.core.plan.checkpoint_saves import kept_saves
from ltx_wizard.core.tuning.duration import Duration, forward_s

LOSS_SAMPLE = 4  # trainer_side/heldout_loss.py: --sample's default
LOSS_SIGMAS = 5  # trainer_side/heldout_loss.py: len(DEFAULT_SIGMAS)
# core/evaluation/prompts.py: IN_DIST_COUNT captions, three synthesised out-of-distribution
# scenes (the default), HELD_OUT_MAX held-out rows at most
IN_DIST_PROMPTS, OUT_DIST_PROMPTS, HELD_OUT_PROMPTS = 3, 3, 5
LOSS_TARGET, TOURNAMENT_TARGET = 0.05, 0.15  # issue 44, Deliver 8: shares of training GPU time


@dataclass(frozen=True)
class CompareCost:
    checkpoints: int  # kept for comparison
    samples: int  # held-out samples the loss uses (0: no clips held out, no loss)
    forward_s: float  # one forward pass of one sample
    load_s: float  # one model load (the training run's, with its end: an upper estimate)
    prompts: int  # eval's prompts per checkpoint
    video_s: float | None  # one validation video at the config's inference steps
    train_gpu_s: float  # steps x s/step x GPUs
    sigmas: int = LOSS_SIGMAS

    @property
    def passes(self) -> int:
        return self.loss_passes(self.checkpoints, self.samples)

    def loss_passes(self, checkpoints: int, samples: int) -> int:
        grid = samples * self.sigmas
        return 2 * grid * checkpoints + grid if samples else 0

    def loss_s(self, checkpoints: int | None = None, samples: int | None = None) -> float:
        n = self.checkpoints if checkpoints is None else checkpoints
        s = self.samples if samples is None else samples
        return self.load_s + self.loss_passes(n, s) * self.forward_s if s and n else 0.0

    def render_s(self, checkpoints: int | None = None) -> float | None:
        if self.video_s is None:
            return None
        n = self.checkpoints if checkpoints is None else checkpoints
        return (1 + n) * (self.load_s + self.prompts * self.video_s) if n else 0.0

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
        """The most held-out samples (up to those used) whose loss fits LOSS_TARGET."""
        for s in range(self.samples, 0, -1):
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


def compare_cost(config: Mapping[str, Any], duration: Duration, held_out: int, gpus: int) -> CompareCost:
    """The cost of comparing what config.yaml keeps, with `held_out` clips held out."""
    return CompareCost(
        checkpoints=kept_count(config),
        samples=min(held_out, LOSS_SAMPLE),
        forward_s=forward_s(config, duration.step_s),
        load_s=duration.load_s or 0.0,
        prompts=eval_prompts(held_out),
        video_s=duration.config_video_s,
        train_gpu_s=duration.train_s * max(1, gpus),
    )
