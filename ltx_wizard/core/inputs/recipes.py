"""Training recipes: the configs the user's checkout ships, and what "low VRAM" means for each.

The trainer ships many recipes under `packages/ltx-trainer/configs/` (t2v, i2v, IC-LoRA, audio,
extend, inpainting, ...) but a low-VRAM twin for t2v only. What that twin changes is read from the
user's own checkout at run time: the keys where `t2v_lora_low_vram.yaml` differs from
`t2v_lora.yaml`. On the 32GB and 40–60GB tiers that difference is applied to any other recipe, key
by key, and only where the recipe has the key, so the wizard follows the trainer's choices and
invents no value.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping

from ltx_wizard.core.io.bounded import read_text
from ltx_wizard.core.base.errors import UsageError, WizardError
from ltx_wizard.core.inputs.recipe_checks import DEFAULT_RECIPE, check_recipe_name, require_sections
from ltx_wizard.core.gpu.tiers import LOW_VRAM_CONFIG, STANDARD_CONFIG, Tier
from ltx_wizard.core.io.trainer_config import trainer_config
from ltx_wizard.core.io.yaml_patch import YamlPatchError, get_dotted, load_yaml, patch_yaml_text

MAX_CONFIG_BYTES = 1 << 20  # the shipped configs are ~15 KB; anything near 1 MB is not one

# The sections of LtxTrainerConfig (ltx_trainer/config.py, class LtxTrainerConfig): a recipe is a
# file whose top-level keys all belong here and that has a training_strategy (the schema forbids
# extra keys, so anything else would not load).
TRAINER_SECTIONS = frozenset(
    {
        "model",
        "lora",
        "training_strategy",
        "optimization",
        "acceleration",
        "data",
        "validation",
        "checkpoints",
        "hub",
        "flow_matching",
        "wandb",
        "seed",
        "output_dir",
    }
)
# Strategy names the trainer knows (training_strategies/base_strategy.py,
# TrainingStrategyConfigBase.name).
STRATEGY_NAMES = frozenset({"flexible", "text_to_video", "video_to_video"})

# Where the two t2v files differ only in bookkeeping (run names, W&B tags, hub ids), the difference
# says nothing about memory and would mislabel another recipe's run.
BOOKKEEPING_KEYS = ("output_dir", "wandb.", "hub.", "seed")


@dataclass(frozen=True)
class Recipe:
    name: str  # the file's stem, e.g. "i2v_lora"
    path: Path
    modes: str  # e.g. "video generated (first_frame) + audio generated"
    strategy: Mapping[str, Any]

    @property
    def file_name(self) -> str:
        return self.path.name

    @property
    def run_mode(self) -> str:
        """The `<mode>` part of a run name: `i2v` for i2v_lora, `v2v-ic` for v2v_ic_lora."""
        stem = self.name[: -len("_lora")] if self.name.endswith("_lora") else self.name
        return stem.replace("_", "-")


def describe_strategy(strategy: Mapping[str, Any]) -> str:
    """What a strategy block trains, in words (modality, role, conditions)."""
    name = strategy.get("name")
    if name != "flexible":
        return f"{name} strategy"
    parts = []
    for modality in ("video", "audio"):
        block = strategy.get(modality)
        if not isinstance(block, Mapping):
            continue
        role = "generated" if block.get("is_generated", True) else "conditioning"
        kinds = [str(c.get("type")) for c in block.get("conditions") or [] if isinstance(c, Mapping)]
        parts.append(f"{modality} {role}" + (f" ({', '.join(kinds)})" if kinds else ""))
    return " + ".join(parts) or "no modality"


def _load_recipe(path: Path, *, strict: bool = False) -> Recipe | None:
    """A shipped file as a recipe, or None when it is not a trainer config.

    `strict`: the user named this file, so why it cannot be read is raised (one line), not hidden.
    """
    try:
        data = load_yaml(read_text(path, what="shipped config", limit=MAX_CONFIG_BYTES))
    except YamlPatchError as exc:
        if strict:
            raise UsageError(f"shipped config {path}: {exc.message}") from None
        return None
    except WizardError:
        if strict:
            raise
        return None
    strategy = data.get("training_strategy")
    if (
        not data
        or not set(data) <= TRAINER_SECTIONS
        or "data" not in data  # LtxTrainerConfig.data has no default
        or not isinstance(strategy, Mapping)
        or strategy.get("name") not in STRATEGY_NAMES
    ):
        return None
    return Recipe(path.stem, path, describe_strategy(strategy), strategy)


def list_recipes(configs_dir: str | os.PathLike[str]) -> list[Recipe]:
    """The recipes in a checkout's configs folder (top level only; accelerate/ is not one)."""
    folder = Path(configs_dir)
    try:
        names = sorted(e.name for e in os.scandir(folder) if e.name.endswith(".yaml"))
    except OSError:
        return []
    # The low-VRAM file is t2v's twin, chosen by tier, not a recipe of its own.
    names = [n for n in names if n != LOW_VRAM_CONFIG]
    recipes = [r for r in (_load_recipe(folder / n) for n in names) if r is not None]
    # t2v first (the default), then alphabetical: the order a chooser shows.
    return sorted(recipes, key=lambda r: (r.name != DEFAULT_RECIPE, r.name))


def find_recipe(configs_dir: str | os.PathLike[str], name: str) -> Recipe:
    wanted = name[: -len(".yaml")] if name.endswith(".yaml") else name
    check_recipe_name(Path(configs_dir), wanted)
    named = Path(configs_dir) / f"{wanted}.yaml"
    if os.path.lexists(named) and wanted != LOW_VRAM_CONFIG[: -len(".yaml")]:
        recipe = _load_recipe(named, strict=True)
        if recipe is None:  # emptied or truncated: the checkout is broken, say so first
            require_sections(named, read_text(named, what="shipped config", limit=MAX_CONFIG_BYTES))
            raise UsageError(
                f"{named} is not a trainer config the schema would load (its top-level keys or "
                "training_strategy are not the trainer's): pass another --recipe"
            )
        return recipe
    recipes = list_recipes(configs_dir)
    for recipe in recipes:
        if recipe.name == wanted:
            return recipe
    known = ", ".join(r.name for r in recipes) or "none"
    raise UsageError(
        f"recipe {name!r} is not in {configs_dir} (found: {known}): pass one of those to --recipe"
    )


def _leaves(data: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Dotted leaf keys; lists are values (video_dims, target_modules), not sections."""
    if isinstance(data, Mapping):
        for key, value in data.items():
            yield from _leaves(value, f"{prefix}{key}.")
    else:
        yield prefix[:-1], data


def low_vram_delta(standard_text: str, low_vram_text: str) -> dict[str, Any]:
    """Keys where the low-VRAM t2v file differs from the standard one, with the low-VRAM value."""
    standard = dict(_leaves(load_yaml(standard_text)))
    delta = {}
    for key, value in _leaves(load_yaml(low_vram_text)):
        if key == "output_dir" or key.startswith(BOOKKEEPING_KEYS):
            continue
        if key not in standard or _plain(standard[key]) != _plain(value):
            delta[key] = _plain(value)
    return delta


def _plain(value: Any) -> Any:
    """ruamel's scalar and list types as plain Python, so 16 == 16 and [..] == [..]."""
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    for kind in (int, float, str):
        if isinstance(value, kind):
            return kind(value)
    return value


_ABSENT = object()


@dataclass(frozen=True)
class RecipeBase:
    """The text config.yaml starts from, and which low-VRAM keys were applied to make it."""

    text: str
    source: str  # the shipped file the text came from
    applied: dict[str, Any]  # key -> value taken from t2v_lora_low_vram.yaml
    skipped: tuple[str, ...]  # low-VRAM keys this recipe does not have


def uses_low_vram(tier: Tier) -> bool:
    """32GB and 40–60GB start from the low-VRAM choices (below-minimum too, at the user's risk)."""
    return tier in (Tier.T32, Tier.T40_60, Tier.BELOW_MINIMUM)


def recipe_base(
    recipe: Recipe, tier: Tier, *, standard_text: str, low_vram_text: str, recipe_text: str
) -> RecipeBase:
    """The starting text for `recipe` on `tier`.

    80GB+: the recipe verbatim. 32GB / 40–60GB: t2v uses its own low-VRAM file verbatim (as the seed
    says); any other recipe gets the low-VRAM difference applied where it has the key.
    """
    if not uses_low_vram(tier):
        return RecipeBase(recipe_text, recipe.file_name, {}, ())
    if recipe.name == DEFAULT_RECIPE:
        return RecipeBase(low_vram_text, LOW_VRAM_CONFIG, {}, ())
    data = load_yaml(recipe_text)
    applied: dict[str, Any] = {}
    skipped = []
    for key, value in low_vram_delta(standard_text, low_vram_text).items():
        current = get_dotted(data, key, _ABSENT)
        if current is _ABSENT:
            skipped.append(key)
        elif _plain(current) != value:
            applied[key] = value
    text = patch_yaml_text(recipe_text, applied) if applied else recipe_text
    return RecipeBase(text, recipe.file_name, applied, tuple(skipped))


def describe_applied(base: RecipeBase, overridden: Iterable[str] = ()) -> list[str]:
    """One line per applied key, for plan.md and the Summary screen; keys a later change of the
    plan sets again (`overridden`, e.g. full fine-tune's quantization) are left out."""
    later = set(overridden)
    return [
        f"`{key}: {show_value(value)}` (from {LOW_VRAM_CONFIG})"
        for key, value in base.applied.items()
        if key not in later
    ]


def describe_skipped(base: RecipeBase) -> list[str]:
    """One line per low-VRAM key the recipe lacks, so none was invented."""
    return [f"`{key}` ({base.source} has no such key, so it is not added)" for key in base.skipped]


@dataclass(frozen=True)
class PlanBase:
    """What `plan` starts from: the recipe, the text to patch, and the shipped file to diff against."""

    recipe: Recipe
    base: RecipeBase
    shipped_path: Path  # the file the diff is taken against (base.source)
    shipped_text: str


def plan_base(configs_dir: Path, name: str, tier: Tier, read: Callable[[Path], str]) -> PlanBase:
    """Read the recipe (and, on the low-VRAM tiers, both t2v files) and build its base text.

    `read` keeps the file's bytes (CRLF stays CRLF), so the diff shows only patched lines.
    """
    recipe = find_recipe(configs_dir, name)
    recipe_text = read(recipe.path)
    require_sections(recipe.path, recipe_text)
    if not uses_low_vram(tier):
        return PlanBase(recipe, RecipeBase(recipe_text, recipe.file_name, {}, ()), recipe.path, recipe_text)
    low_path = configs_dir / LOW_VRAM_CONFIG
    low_text = read(low_path)
    standard_text = recipe_text if recipe.name == DEFAULT_RECIPE else read(configs_dir / STANDARD_CONFIG)
    require_sections(low_path, low_text)
    require_sections(configs_dir / STANDARD_CONFIG, standard_text)
    try:
        base = recipe_base(
            recipe, tier, standard_text=standard_text, low_vram_text=low_text, recipe_text=recipe_text
        )
    except YamlPatchError as exc:
        raise UsageError(f"cannot apply the low-VRAM keys to {recipe.path}: {exc}") from None
    if base.source == LOW_VRAM_CONFIG:
        return PlanBase(recipe, base, low_path, low_text)
    return PlanBase(recipe, base, recipe.path, recipe_text)


def show_value(value: Any) -> str:
    """A config value as YAML writes it (null, true, [a, b]), for plan.md and the screens."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(show_value(v) for v in value) + "]"
    return str(value)


def _short_clip_warnings(config: Mapping[str, Any], applied: Mapping[str, Any]) -> list[str]:
    """A validation prefix/suffix as long as the low-VRAM clip leaves nothing to generate.

    mirrors ltx_trainer/validation_runner.py _encode_temporal_condition_media: the condition's
    video is read up to the sample's frame count, so with fewer frames it covers every frame.
    """
    dims = applied.get("validation.video_dims")
    if not (isinstance(dims, list) and len(dims) == 3 and isinstance(dims[2], int)):
        return []
    out = []
    for i, sample in enumerate(trainer_config(config).validation.samples or []):
        if sample.get("video_dims") is not None:
            continue  # a sample's own dims are not the applied ones
        for j, cond in enumerate(sample.get("conditions") or []):
            frames = cond.get("num_frames") if isinstance(cond, Mapping) else None
            if isinstance(frames, int) and frames >= dims[2]:
                out.append(
                    f"validation.samples[{i}].conditions[{j}].num_frames {frames} is not shorter "
                    f"than the {dims[2]} frames of validation.video_dims from {LOW_VRAM_CONFIG}: "
                    "the validation clip would be all condition; lower num_frames in config.yaml"
                )
    return out


@dataclass(frozen=True)
class RecipeNotes:
    """The recipe's words for plan.md: assumptions, warnings, applied and skipped keys."""

    assumptions: tuple[str, ...]
    warnings: tuple[str, ...]
    applied: tuple[str, ...]
    skipped: tuple[str, ...]


def recipe_notes(start: PlanBase, tier: Tier, overridden: Iterable[str] = ()) -> RecipeNotes:
    """What plan.md says about the recipe on this tier (`overridden`: keys the plan sets later)."""
    base, recipe = start.base, start.recipe
    later = set(overridden)
    assumptions = [f"Recipe `{recipe.name}` ({recipe.modes}); pass --recipe NAME for another."]
    warnings: list[str] = []
    if base.applied or base.skipped:
        assumptions.append(
            f"{recipe.file_name} has no low-VRAM twin, so the keys where {LOW_VRAM_CONFIG} differs "
            f"from {STANDARD_CONFIG} were applied to it (listed under Training config); everything "
            "else as shipped."
        )
    else:
        assumptions.append(
            f"Steps, learning rate, LoRA rank and validation settings as shipped in {base.source}."
        )
    if tier is Tier.T40_60:
        assumptions.append(
            "40–60GB tier: no tested config exists, so the low-VRAM choices are "
            "used unchanged and autotune relaxes them on measured headroom."
        )
    # validation media: the plan writes the user's files or none (core/validation/validation_choice.py)
    warnings += _short_clip_warnings(load_yaml(base.text), base.applied)
    again = [key for key in base.applied if key in later]
    if again:
        warnings.append(
            f"{', '.join(again)}: set again by this plan (see the diff), so the "
            f"{LOW_VRAM_CONFIG} value does not apply"
        )
    return RecipeNotes(
        tuple(assumptions),
        tuple(warnings),
        tuple(describe_applied(base, later)),
        tuple(describe_skipped(base)),
    )


__all__ = [
    "DEFAULT_RECIPE",
    "PlanBase",
    "Recipe",
    "RecipeBase",
    "describe_applied",
    "describe_skipped",
    "describe_strategy",
    "plan_base",
    "recipe_notes",
    "RecipeNotes",
    "find_recipe",
    "list_recipes",
    "low_vram_delta",
    "recipe_base",
    "uses_low_vram",
    "STANDARD_CONFIG",
]
