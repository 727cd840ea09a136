"""How many checkpoints the run keeps for comparison (issue 44), spread over the run, and sized
against the free disk: checkpoints.interval and checkpoints.keep_last_n, the only keys patched.

Which checkpoint to use is answered by comparing several (held-out loss, health, renders), and the
trainer keeps only the last one by default. The plan keeps COMPARE_KEEP of them, one every
steps / COMPARE_KEEP steps, every save kept (checkpoint_saves.py: keep_last_n counts the repeated
last save twice), or as many as the disk holds beside the run's other outputs. A shipped config
that already keeps every save, at least COMPARE_KEEP of them, and fits, is left as it is.
"""

from __future__ import annotations

from typing import Any, Mapping

from ltx_wizard.core.base.records import record
from ltx_wizard.core.io.trainer_config import trainer_config
from ltx_wizard.core.plan.checkpoint_saves import CheckpointBytes, keep_every_save, kept_saves
from ltx_wizard.core.plan.host_limits import OUTPUT_ALLOWANCE, VIDEO_ALLOWANCE, gib, validation_videos

COMPARE_KEEP = 5  # issue 44: at least five checkpoints to compare


@record
class CheckpointKeep:
    """The plan's decision, kept in plan.json: plan.md renders it against the config of the day."""

    weights_bytes: int  # one checkpoint
    state_bytes: int = 0  # its optimizer state (save_training_state: full)
    fits: int | None = None  # how many the free disk holds beside the run's other outputs
    interval: int | None = None  # checkpoints.interval as patched (None: the shipped keys kept)
    keep_last_n: int | None = None  # checkpoints.keep_last_n as patched

    @property
    def changes(self) -> dict[str, object]:
        """The config keys the plan patches (none where the shipped ones keep enough)."""
        if self.interval is None or self.keep_last_n is None:
            return {}
        return {"checkpoints.interval": self.interval, "checkpoints.keep_last_n": self.keep_last_n}


def spread(steps: int, count: int, fits: int | None = None) -> tuple[int, int]:
    """checkpoints.interval and keep_last_n for `count` checkpoints evenly over `steps`, every
    save kept. An interval of ceil(steps / count) leaves ceil(steps / interval) files, which can
    fall short (7 steps: every 2 leaves 4); then every floor(steps / count) leaves a few more,
    where the disk (`fits`) holds them."""
    count = max(1, min(count, steps))
    interval = -(-steps // count)
    if -(-steps // interval) < count:
        denser = steps // count
        if fits is None or -(-steps // denser) <= fits:
            interval = denser
    return interval, keep_every_save(steps, interval)


def plan_keep(
    config: Mapping[str, Any], size: CheckpointBytes, disk_free: int | None, other_disk: int = 0
) -> CheckpointKeep:
    """The keys to patch so that COMPARE_KEEP checkpoints (or as many as fit) stay, spread.
    `other_disk`: what else the run writes on the run folder's disk (latents on it included)."""
    keys = trainer_config(config)
    steps = keys.optimization.steps
    room = None if disk_free is None else disk_free - other_disk - videos_and_logs(config)
    fits = None if room is None else max(0, room // max(1, size.each))
    base = CheckpointKeep(weights_bytes=size.weights, state_bytes=size.state, fits=fits)
    if not steps or steps < 1:
        return base  # no steps to spread over: the shipped keys stand
    shipped = kept_saves(steps, keys.checkpoints.interval, keys.checkpoints.keep_last_n)
    every = keys.checkpoints.keep_last_n is not None and keys.checkpoints.keep_last_n <= 0
    if every and len(shipped.steps) >= COMPARE_KEEP and (fits is None or shipped.peak <= fits):
        return base
    want = COMPARE_KEEP if fits is None else max(1, min(COMPARE_KEEP, fits))
    interval, keep_n = spread(steps, want, fits)
    if (interval, keep_n) == (keys.checkpoints.interval, keys.checkpoints.keep_last_n):
        return base
    return CheckpointKeep(
        weights_bytes=size.weights, state_bytes=size.state, fits=fits, interval=interval, keep_last_n=keep_n
    )


def videos_and_logs(config: Mapping[str, Any]) -> int:
    """host_limits.py `_disk`'s other items: the validation videos' allowance and the logs'."""
    return validation_videos(config) * VIDEO_ALLOWANCE + OUTPUT_ALLOWANCE


def _steps_words(steps: tuple[int, ...]) -> str:
    return ", ".join(f"{s:,}" for s in steps)


def keep_lines(config: Mapping[str, Any], keep: CheckpointKeep) -> list[str]:
    """plan.md's "Checkpoints kept for comparison" lines, from the config as it now is (after
    autotune's rescaled steps too) and the plan's record."""
    keys = trainer_config(config)
    steps = keys.optimization.steps
    if not steps:
        return ["- optimization.steps is not set: the checkpoints kept cannot be counted."]
    interval, keep_n = keys.checkpoints.interval, keys.checkpoints.keep_last_n
    kept = kept_saves(steps, interval, keep_n).steps
    each = keep.weights_bytes + keep.state_bytes
    lines = [
        f"- {len(kept)} checkpoint{'s' if len(kept) != 1 else ''} kept, at step{'s' if len(kept) != 1 else ''} "
        f"{_steps_words(kept)}: {gib(each)} each, {gib(each * len(kept))} in all "
        f"(checkpoints.interval {interval if interval else 'unset'}, keep_last_n "
        f"{TRAINER_DEFAULT if keep_n is None else keep_n})."
    ]
    if interval and keep_n is not None and keep_n > len(kept) and steps % interval == 0:
        lines.append(
            f"- keep_last_n is {keep_n}, not {len(kept)}: the trainer saves step {steps:,} twice (at the "
            "interval and after the loop) and counts both."
        )
    if keep.state_bytes:
        lines.append(
            f"- Each with its optimizer state ({gib(keep.state_bytes)}): save_training_state is full."
        )
    if len(kept) < COMPARE_KEEP:
        lines.append(f"- {_fewer(keep, len(kept), steps)}")
    return lines


TRAINER_DEFAULT = 1  # config.py CheckpointsConfig.keep_last_n when the key is absent


def _fewer(keep: CheckpointKeep, count: int, steps: int) -> str:
    """Why fewer than COMPARE_KEEP: the disk, or a run of fewer steps."""
    if keep.fits is not None and keep.fits < COMPARE_KEEP:
        return (
            f"Fewer than {COMPARE_KEEP} to compare: the free disk holds {keep.fits} checkpoint"
            f"{'s' if keep.fits != 1 else ''} beside the run's other outputs; free space for more."
        )
    if steps < COMPARE_KEEP:
        return f"Fewer than {COMPARE_KEEP} to compare: the run has {steps} step{'s' if steps != 1 else ''}."
    return (
        f"Fewer than {COMPARE_KEEP} to compare: config.yaml's checkpoints keys were changed after the plan."
    )


def keep_warning(keep: CheckpointKeep) -> str | None:
    """The plan's warning when the disk holds fewer than COMPARE_KEEP."""
    if keep.fits is None or keep.fits >= COMPARE_KEEP:
        return None
    return (
        f"the free disk holds {keep.fits} checkpoint{'s' if keep.fits != 1 else ''} of "
        f"{gib(keep.weights_bytes + keep.state_bytes)} beside the run's other outputs, fewer than the "
        f"{COMPARE_KEEP} kept for comparison: planned {max(1, keep.fits)}; free disk to keep more"
    )
