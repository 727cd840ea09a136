"""The LoRA health verdict: a checkpoint's module facts (health_record.py) grouped, matched against
what the config trains, and judged. `ok` only without a problem; a NaN or an Inf anywhere is always
a problem. Each problem is one plain sentence naming the module group and the number.

Groups, by the module's place in ltx-core's BasicAVTransformerBlock
(ltx_core/model/transformer/transformer.py): video attention (attn1, attn2), video feed-forward
(ff), audio attention (audio_attn1, audio_attn2), audio feed-forward (audio_ff), audio-video cross
attention (audio_to_video_attn, video_to_audio_attn), and anything outside the blocks. The audio
and cross groups run only when the model is given audio (transformer.py `forward`: run_ax,
run_a2v and run_v2a need an audio modality), so on a video-only run their B matrices must stay
at PEFT's zero start: zero there is expected, anything else was trained with audio off. The norms
are also summed over four ranges of blocks, to show where along the depth the LoRA acts.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ltx_wizard.core.compare.health_record import CheckpointFacts, ModuleFacts
from ltx_wizard.core.dataset.sources import audio_folder
from ltx_wizard.core.io.trainer_config import trainer_config

PREFIX = "diffusion_model."  # ltx_trainer/trainer.py _save_checkpoint adds it to PEFT's names
DEFAULT_TARGETS = ("to_k", "to_q", "to_v", "to_out.0")  # ltx_trainer/config.py LoraConfig.target_modules
BLOCKS = "transformer_blocks"
_PARTS = {  # a block's submodule -> (branch, kind)
    "attn1": ("video", "attention"),
    "attn2": ("video", "attention"),
    "ff": ("video", "feed-forward"),
    "audio_attn1": ("audio", "attention"),
    "audio_attn2": ("audio", "attention"),
    "audio_ff": ("audio", "feed-forward"),
    "audio_to_video_attn": ("audio-video cross", "attention"),
    "video_to_audio_attn": ("audio-video cross", "attention"),
}
AUDIO_BRANCHES = frozenset({"audio", "audio-video cross"})
OUTSIDE = "outside the blocks"
RANGES = 4  # block ranges the norms are also summed over


@dataclass(frozen=True)
class Trained:
    """What the config trains: its lora.target_modules and whether the model sees audio."""

    targets: tuple[str, ...] = DEFAULT_TARGETS
    audio: bool = False

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Trained:
        keys = trainer_config(config)
        targets = keys.lora.target_modules
        trains_audio = audio_folder(keys.training_strategy) is not None  # core/dataset/sources.py's rule
        return cls(tuple(targets) if targets is not None else DEFAULT_TARGETS, trains_audio)


@dataclass(frozen=True)
class Place:
    """Where a module sits: its group's name, its branch, and its block (None outside the blocks)."""

    group: str
    branch: str
    block: int | None


@dataclass(frozen=True)
class GroupNorm:
    """A group's modules and the norm of their update together: sqrt of the sum of squares of
    each module's ||B @ A||_F (None when one of them is not finite)."""

    name: str
    modules: int
    norm: float | None


@dataclass(frozen=True)
class HealthVerdict:
    path: str
    ok: bool
    problems: tuple[str, ...]
    groups: tuple[GroupNorm, ...]
    block_ranges: tuple[GroupNorm, ...]


def place(name: str) -> Place:
    parts = name.removeprefix(PREFIX).split(".")
    if len(parts) >= 3 and parts[0] == BLOCKS and parts[1].isdigit() and parts[2] in _PARTS:
        branch, kind = _PARTS[parts[2]]
        return Place(f"{branch} {kind}", branch, int(parts[1]))
    return Place(OUTSIDE, OUTSIDE, None)


def targeted(name: str, targets: Iterable[str]) -> bool:
    """PEFT's rule for a list of target_modules (peft/tuners/tuners_utils.py
    check_target_module_exists): the module's full name is one of them, or ends with "." + one."""
    key = name.removeprefix(PREFIX)
    return any(key == t or key.endswith(f".{t}") for t in targets)


def _norm(values: Iterable[float | None]) -> float | None:
    total = 0.0
    for value in values:
        if value is None:
            return None
        total += value * value
    return math.sqrt(total)


def _grouped(facts: CheckpointFacts) -> dict[str, list[ModuleFacts]]:
    groups: dict[str, list[ModuleFacts]] = {}
    for module in facts.modules:
        groups.setdefault(place(module.name).group, []).append(module)
    return groups


def _block_ranges(facts: CheckpointFacts) -> tuple[GroupNorm, ...]:
    blocks = [(b, m) for m in facts.modules if (b := place(m.name).block) is not None]
    if not blocks:
        return ()
    width = math.ceil((max(b for b, _ in blocks) + 1) / RANGES)
    ranges: dict[int, list[ModuleFacts]] = {}
    for block, module in blocks:
        ranges.setdefault(block // width, []).append(module)
    return tuple(
        GroupNorm(_range_name(i, width), len(ms), _norm(m.delta_norm for m in ms))
        for i, ms in sorted(ranges.items())
    )


def _range_name(index: int, width: int) -> str:
    first = index * width
    return f"block {first}" if width == 1 else f"blocks {first}-{first + width - 1}"


def _nan_problems(groups: dict[str, list[ModuleFacts]], facts: CheckpointFacts) -> list[str]:
    found = []
    for group, modules in groups.items():
        bad = [m for m in modules if m.nan or m.inf]
        if bad:
            nan, inf = sum(m.nan for m in bad), sum(m.inf for m in bad)
            found.append(
                f"{group}: {nan:,} NaN and {inf:,} Inf values in {len(bad)} of {len(modules)} modules"
            )
    bad_others = [t for t in facts.others if t.nan or t.inf]
    if bad_others:
        nan, inf = sum(t.nan for t in bad_others), sum(t.inf for t in bad_others)
        found.append(
            f"{nan:,} NaN and {inf:,} Inf values in {len(bad_others)} tensors outside the LoRA pairs "
            f"(first: {bad_others[0].name})"
        )
    return found


def _learning_problems(groups: dict[str, list[ModuleFacts]], trained: Trained) -> list[str]:
    """B matrices left at zero where the run should have moved them; trained ones where it could not."""
    found, expected, idle = [], [], 0
    for group, modules in groups.items():
        audio_side = place(modules[0].name).branch in AUDIO_BRANCHES
        ours = [m for m in modules if targeted(m.name, trained.targets)]
        if audio_side and not trained.audio:
            moved = [m for m in ours if not m.b_zero]
            idle += len(ours)
            if moved:
                found.append(
                    f"{group}: {len(moved)} of {len(ours)} modules trained on a video-only run "
                    "(the config gives the model no audio)"
                )
            continue
        expected += ours
        zero = sum(m.b_zero for m in ours)
        if ours and zero and zero < len(ours):
            found.append(f"{group}: {zero} of {len(ours)} B matrices are all zero (nothing learned there)")
    if expected and all(m.b_zero for m in expected):
        found = [f"nothing learned: all {len(expected)} B matrices of the trained modules are zero", *found]
    if idle and not expected:  # an audio-only target list on a video-only run
        found.append(
            f"nothing to learn: all {idle} targeted modules are audio ones and the config gives no audio"
        )
    return found


def _target_problems(groups: dict[str, list[ModuleFacts]], trained: Trained) -> list[str]:
    found = []
    for group, modules in groups.items():
        foreign = [m for m in modules if not targeted(m.name, trained.targets)]
        if foreign:
            found.append(
                f"{group}: {len(foreign)} modules the config does not target "
                f"(lora.target_modules: {', '.join(trained.targets)}; first: {foreign[0].name.removeprefix(PREFIX)})"
            )
    return found


def verdict(facts: CheckpointFacts, trained: Trained) -> HealthVerdict:
    """The checkpoint's problems, NaN and Inf first; ok only when there is none."""
    groups = _grouped(facts)
    problems = _nan_problems(groups, facts)
    if not facts.modules:
        problems.append("no LoRA modules in the file (no lora_A/lora_B pairs): not a LoRA checkpoint")
    problems += _learning_problems(groups, trained) + _target_problems(groups, trained)
    norms = tuple(GroupNorm(g, len(ms), _norm(m.delta_norm for m in ms)) for g, ms in sorted(groups.items()))
    return HealthVerdict(facts.path, not problems, tuple(problems), norms, _block_ranges(facts))
