"""config.yaml after autotune: the planned text with the winner's changes (and, after an allowed
batch change, the rescaled `optimization.steps`) spliced in, each changed line marked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from ltx_wizard.core.tuning.batch_rule import effective, rescaled_steps
from ltx_wizard.core.tuning.headroom import TrainSettings
from ltx_wizard.core.inputs.recipes import show_value
from ltx_wizard.core.plan.checkpoint_keep import spread
from ltx_wizard.core.plan.checkpoint_saves import keep_every_save, kept_saves
from ltx_wizard.core.io.yaml_marks import mark_changed
from ltx_wizard.core.io.trainer_config import TrainerConfig, trainer_config, written_keys
from ltx_wizard.core.io.yaml_patch import get_dotted, load_yaml, patch_yaml_text

STEPS_KEY = "optimization.steps"
# Counted in optimizer steps as optimization.steps is (trainer.py LtxvTrainer.train: validation
# when step % validation.interval == 0, a checkpoint when step % checkpoints.interval == 0): they
# are rescaled with the steps, so the run validates and saves as often as planned.
INTERVAL_KEYS = ("validation.interval", "checkpoints.interval")
KEEP_KEY = "checkpoints.keep_last_n"
_ABSENT = object()


def _keep_every_save(keys: TrainerConfig, steps: int, new_steps: int) -> dict[str, object]:
    """A plan that keeps every save (core/plan/checkpoint_keep.py) keeps as many, spread over the
    new steps: a rescaled interval alone could leave one more, two steps before the last."""
    interval, keep = keys.checkpoints.interval, keys.checkpoints.keep_last_n
    if interval is None or keep is None or interval <= 0 or keep <= 0:
        return {}
    if keep != keep_every_save(steps, interval):
        return {}
    count = len(kept_saves(steps, interval, keep).steps)
    new_interval, new_keep = spread(new_steps, count, fits=count)
    return {INTERVAL_KEYS[1]: new_interval, KEEP_KEY: new_keep}


@dataclass(frozen=True)
class TunedConfig:
    text: str
    changes: dict[str, object]  # every key written, the rescaled steps included
    steps: tuple[int, int] | None = None  # (planned, rescaled) when the effective batch moved
    effective: tuple[int, int] = (1, 1)  # samples per optimizer step per GPU: planned, tuned


def tuned_config(
    planned: str, winner_changes: Mapping[str, object], before: TrainSettings, after: TrainSettings
) -> TunedConfig:
    data = load_yaml(planned)
    keys = trainer_config(data)
    changes = dict(winner_changes)
    steps = keys.optimization.steps
    moved = None
    if effective(before) != effective(after) and steps is not None:
        moved = (steps, rescaled_steps(steps, before, after))
        changes[STEPS_KEY] = moved[1]
        # only an interval the YAML sets: an absent one (the trainer's 100) is left absent
        written = written_keys(data)
        intervals = (keys.validation.interval, keys.checkpoints.interval)
        for key, interval in zip(INTERVAL_KEYS, intervals):
            if key in written and interval is not None and interval > 0:
                changes[key] = rescaled_steps(interval, before, after)
        changes.update(_keep_every_save(keys, steps, moved[1]))
    notes: dict[str, str] = {}
    shown: dict[str, str] = {}
    for key, value in changes.items():  # a generic diff over the changes' own keys (data here)
        old = get_dotted(data, key, _ABSENT)
        if old is not _ABSENT and type(old) is type(value) and old == value:
            continue  # not a change: no mark
        was = "absent" if old is _ABSENT else show_value(old)
        shown[key] = was
        if key == STEPS_KEY:
            notes[key] = f"autotune, samples seen kept at batch x accumulation {effective(after)} (was {was})"
        elif key in INTERVAL_KEYS or key == KEEP_KEY:
            notes[key] = f"autotune, rescaled with the steps (was {was})"
        else:
            notes[key] = f"autotune (was {was})"
    text = mark_changed(patch_yaml_text(planned, changes), notes, shown)
    return TunedConfig(text, changes, moved, (effective(before), effective(after)))
