"""A typed view of the trainer config keys the wizard reads (`TrainerConfig`), in place of
string-key reads such as `get_dotted(config, "validation.samples")`.

It mirrors the trainer's own declaration: `LtxTrainerConfig` and its sections in
packages/ltx-trainer/src/ltx_trainer/config.py (Lightricks/LTX-2; field names checked by
tests/core/io/test_trainer_config.py). Only the keys the wizard reads are named, nested as the
trainer nests them; every other key is allowed and passed over (the trainer's `extra="forbid"` is
the trainer's own check, and the user's config may come from a newer trainer).

A view, never a writer: config.yaml is changed only through the byte-preserving YAML patcher. A
field is None where the YAML leaves it out (or sets it to null): the reader says which default it
takes, as the trainer would; only validation.interval, whose null means "off", takes the
trainer's default here. Built on msgspec `Struct`s, the house's model system for the files the
wizard reads (light enough for start-up, where pydantic is kept off the first screen); frozen.

Every read of a named key goes through it (tests/project/test_named_config_keys.py): a wrong type
is refused in one line naming the file, the key, the value and what the key wants. Beside it: the
strategy's named keys (`StrategyKeys`), keys only older trainers read (`OlderTrainerKeys`, kept
apart so `TrainerConfig` stays today's), and which keys a file sets (`written_keys`: plan.md's
table shows a key set to null, and not one left out).
"""

from __future__ import annotations

import re
from typing import Any, Mapping, TypeVar

import msgspec

from ltx_wizard.core.io.run_folder import CONFIG
from ltx_wizard.core.base.errors import UsageError


VALIDATION_INTERVAL = 100  # ltx_trainer/config.py ValidationConfig.interval's default


class _Section(msgspec.Struct, frozen=True, kw_only=True):
    pass


class ModelKeys(_Section, frozen=True, kw_only=True):  # the trainer's ModelConfig
    model_path: str | None = None
    text_encoder_path: str | None = None
    video_vae_path: str | None = None  # with audio_vae_path: a split pack's files
    audio_vae_path: str | None = None
    training_mode: str | None = None  # lora | full (the trainer's default: lora)
    load_checkpoint: str | None = None


class LoraKeys(_Section, frozen=True, kw_only=True):  # LoraConfig
    rank: int | None = None
    alpha: int | None = None
    target_modules: list[str] | None = None


class OptimizationKeys(_Section, frozen=True, kw_only=True):  # OptimizationConfig
    learning_rate: int | float | None = None  # as the YAML writes it (1 stays 1 in plan.md)
    steps: int | None = None
    batch_size: int | None = None
    gradient_accumulation_steps: int | None = None
    optimizer_type: str | None = None
    scheduler_type: str | None = None
    enable_gradient_checkpointing: bool | None = None


class AccelerationKeys(_Section, frozen=True, kw_only=True):  # AccelerationConfig
    mixed_precision_mode: str | None = None
    quantization: str | None = None
    load_text_encoder_in_8bit: bool | None = None
    offload_optimizer_during_validation: bool | None = None


class DataKeys(_Section, frozen=True, kw_only=True):  # DataConfig
    preprocessed_data_root: str | None = None


class ValidationKeys(_Section, frozen=True, kw_only=True):  # ValidationConfig
    # the trainer's ValidationSample items, kept as the YAML's own mappings: the wizard splices
    # them back into config.yaml through the patcher (core/validation)
    samples: list[dict[str, Any]] | None = None
    prompts: list[str] | None = None  # the legacy form, converted to samples by the trainer
    images: list[str] | None = None
    reference_videos: list[str] | None = None
    video_dims: list[int] | None = None  # [W, H, F]; its shape is checked where it is used
    # numbers as the YAML writes them (25 or 25.0): ltx-pipelines is passed them as written
    frame_rate: int | float | None = None
    inference_steps: int | None = None
    negative_prompt: str | None = None
    video_cfg_scale: int | float | None = None
    video_stg_scale: int | float | None = None
    guidance_rescale: int | float | None = None
    audio_cfg_scale: int | float | None = None
    audio_stg_scale: int | float | None = None
    # the trainer's default where the YAML leaves it out; null there is "validation off" (None)
    interval: int | None = VALIDATION_INTERVAL
    generate_audio: bool | None = None
    generate_video: bool | None = None
    skip_initial_validation: bool | None = None
    stg_blocks: list[int] | None = None

    def sample_list(self) -> list[dict[str, Any]]:
        """The samples, else the legacy prompts as samples (the trainer's convert_legacy_format)."""
        return list(self.samples or []) or [{"prompt": p} for p in self.prompts or []]


class CheckpointsKeys(_Section, frozen=True, kw_only=True):  # CheckpointsConfig
    interval: int | None = None
    keep_last_n: int | None = None
    precision: str | None = None
    no_resume: bool | None = None
    save_training_state: str | None = None


class WandbKeys(_Section, frozen=True, kw_only=True):  # WandbConfig
    enabled: bool | None = None


class StrategyKeys(_Section, frozen=True, kw_only=True):
    """The strategy keys the wizard reads by name, typed: `name` from
    training_strategies/base_strategy.py TrainingStrategyConfigBase, `with_audio` from
    training_strategies/text_to_video.py TextToVideoConfig (the other strategies have none)."""

    name: str | None = None
    with_audio: bool | None = None


class TrainerConfig(_Section, frozen=True, kw_only=True):  # LtxTrainerConfig
    model: ModelKeys = msgspec.field(default_factory=ModelKeys)
    lora: LoraKeys = msgspec.field(default_factory=LoraKeys)
    # a discriminated union in the trainer (text_to_video, video_to_video, flexible, ...): read
    # whole, as its own mapping, by core/dataset/sources.py and the conditions' readers
    training_strategy: dict[str, Any] | None = None
    optimization: OptimizationKeys = msgspec.field(default_factory=OptimizationKeys)
    acceleration: AccelerationKeys = msgspec.field(default_factory=AccelerationKeys)
    data: DataKeys = msgspec.field(default_factory=DataKeys)
    validation: ValidationKeys = msgspec.field(default_factory=ValidationKeys)
    checkpoints: CheckpointsKeys = msgspec.field(default_factory=CheckpointsKeys)
    wandb: WandbKeys = msgspec.field(default_factory=WandbKeys)
    seed: int | None = None
    output_dir: str | None = None

    def strategy(self) -> StrategyKeys:
        """The strategy's named keys (checked by `trainer_config`, so this never fails)."""
        return msgspec.convert(self.training_strategy or {}, StrategyKeys, strict=False)


class OlderValidationKeys(_Section, frozen=True, kw_only=True):
    videos_per_prompt: int | None = None  # an older trainer's ValidationConfig key, gone from today's


class OlderTrainerKeys(_Section, frozen=True, kw_only=True):
    """Keys of older trainers that a user's config may still carry, typed apart from
    `TrainerConfig` (whose every field is today's LtxTrainerConfig's)."""

    validation: OlderValidationKeys = msgspec.field(default_factory=OlderValidationKeys)


SECTIONS = tuple(
    f for f in TrainerConfig.__struct_fields__ if f not in ("training_strategy", "seed", "output_dir")
)


def trainer_config(config: Mapping[str, Any], what: str = CONFIG.name) -> TrainerConfig:
    """The view of a loaded trainer YAML. A section set to null reads as empty (as the trainer's
    None for `lora`); UsageError naming `what` and the key where a value has the wrong type."""
    view = _decode(config, TrainerConfig, what)
    _decode({"training_strategy": view.training_strategy or {}}, _StrategyCheck, what)
    return view


def older_trainer_keys(config: Mapping[str, Any], what: str = CONFIG.name) -> OlderTrainerKeys:
    """The view of the keys only older trainers read; refused as `trainer_config` refuses."""
    return _decode(config, OlderTrainerKeys, what)


class _StrategyCheck(_Section, frozen=True, kw_only=True):
    training_strategy: StrategyKeys  # so a refusal names training_strategy.<key>


_View = TypeVar("_View", bound=_Section)


def _decode(config: Mapping[str, Any], kind: type[_View], what: str) -> _View:
    plain = {k: _builtin(v) for k, v in config.items() if not (k in SECTIONS and v is None)}
    try:
        return msgspec.convert(plain, kind, strict=False)
    except msgspec.ValidationError as exc:
        raise UsageError(_refusal(what, plain, str(exc))) from None


# msgspec's names for the expected types, in the words the wizard's refusals use
_WANTS = {
    "int": "a whole number",
    "int | null": "a whole number",
    "str": "a string",
    "int | float | null": "a number",
    "str | null": "a string or null",
    "bool | null": "true or false",
    "array | null": "a list",
    "object": "a section of keys",
    "object | null": "a section of keys",
}


def _refusal(what: str, plain: Mapping[str, Any], error: str) -> str:
    """`config.yaml: optimization.batch_size is 'lots', expected a whole number` from msgspec's
    `Expected `int | null`, got `str` - at `$.optimization.batch_size``."""
    reason, _, where = error.partition(" - at `$")
    key = where.rstrip("`").lstrip(".")
    if not key:
        return f"{what}: {error}"
    expected = reason.partition("Expected `")[2].partition("`")[0]
    want = f"expected {_WANTS[expected]}" if expected in _WANTS else reason[:1].lower() + reason[1:]
    shown = repr(_at(plain, key))
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return f"{what}: {key} is {shown}, {want}"


def _at(plain: Any, key: str) -> Any:
    """The value at msgspec's error path (`a.b[2].c`) in the decoded mapping."""
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", key):
        if part.startswith("[") and isinstance(plain, list):
            plain = plain[int(part[1:-1])]
        elif isinstance(plain, Mapping):
            plain = plain.get(part)
    return plain


def _builtin(value: Any) -> Any:
    """ruamel's round-trip scalars (ScalarFloat, ScalarInt, ...) as the builtins they extend: the
    decoder takes builtins only."""
    if isinstance(value, Mapping):
        return {str(k): _builtin(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_builtin(v) for v in value]
    for kind in (bool, int, float, str):
        if isinstance(value, kind):
            return kind(value)
    return value


def written_keys(config: Mapping[str, Any]) -> frozenset[str]:
    """The view's keys the YAML itself sets, null included, as `section.key`: in the view an absent
    key and a null read alike (plan.md's table shows what the file sets, and only that)."""
    found = set()
    for field in msgspec.structs.fields(TrainerConfig):
        section, kind = config.get(field.name), field.type
        if field.name in config:
            found.add(field.name)
        if isinstance(section, Mapping) and isinstance(kind, type) and issubclass(kind, _Section):
            found.update(f"{field.name}.{key}" for key in kind.__struct_fields__ if key in section)
    return frozenset(found)


def value_at(view: TrainerConfig, key: str) -> Any:
    """The view's typed value of `section.key`; AttributeError for a key the view does not name."""
    value: Any = view
    for part in key.split("."):
        value = getattr(value, part)
    return value
