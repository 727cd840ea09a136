"""Trial and confirmation configs: the current best config, shortened to a few dozen steps.

Written with the same byte-preserving patcher as config.yaml, so a trial config differs from the
planned one only on the lines that make it a trial.

A *trial* measures training only. Setting `validation.samples: []` (and the deprecated
`validation.prompts: []`) and `validation.interval: null` makes the real trainer skip both
validation and the Gemma text encoder, from config alone:
- ltx_trainer/validation_runner.py ValidationRunner._cache_prompt_embeddings returns before
  load_text_encoder when there are no prompts (config.py ValidationConfig.convert_legacy_format
  turns `prompts` into samples only when `samples` is empty, hence both keys);
- ltx_trainer/trainer.py LtxvTrainer.train validates only when `validation.interval` is set, and
  _run_validation returns at once without samples;
- training itself never needs Gemma: the conditions are precomputed, and LtxvTrainer._load_models
  loads only the embeddings processor (connectors, read from the transformer checkpoint; the
  Gemma path is read for its config only);
- `validation.generate_video: false` also skips building the VAE decoder on CPU
  (ValidationRunner._load_decoder_components); the modality check in
  ValidationConfig.validate_output_modality_requirements applies only when samples exist.
The trainer logs a step line every 20 optimizer steps with --disable-progress-bars (trainer.py
train, `self._global_step % 20 == 0`): 40 steps give the two earliest readings, 20 and 40.

The *confirmation* runs the winner with its own validation (own video_dims, the first prompt,
CONFIRM_INFERENCE_STEPS inference steps) after CONFIRM_STEPS optimizer steps, so the optimizer
states exist (and are offloaded if the config says so) when the VAE decodes. A *fused* run is a
trial that is certainly the last one: it trains TRIAL_STEPS steps first (the step-20 and step-40
readings come before any validation) and validates once at step TRIAL_STEPS + 1.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

from ruamel.yaml import YAML
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ltx_wizard.core.tuning.headroom import TrainSettings
from ltx_wizard.core.io.yaml_guard import yaml_json
from ltx_wizard.core.io.trainer_config import older_trainer_keys, trainer_config
from ltx_wizard.core.io.yaml_patch import YamlPatchError, load_yaml, patch_yaml_text

TRIAL_STEPS = 40
CONFIRM_STEPS = 2
CONFIRM_INFERENCE_STEPS = 4  # memory does not depend on the step count; a few prove the loop runs
FUSED_STEPS = TRIAL_STEPS + 1


def _common(subset_root: Path, output_dir: Path) -> dict[str, object]:
    return {
        "data.preprocessed_data_root": str(subset_root),
        "checkpoints.interval": None,
        "wandb.enabled": False,
        "hub.push_to_hub": False,
        "output_dir": str(output_dir),
    }


def trial_overrides(subset_root: Path, output_dir: Path) -> dict[str, object]:
    """The scalar keys that make any config a trial; they never reach config.yaml."""
    return {
        **_common(subset_root, output_dir),
        "optimization.steps": TRIAL_STEPS,
        "validation.interval": None,
        "validation.skip_initial_validation": True,
        "validation.generate_video": False,
        "validation.generate_audio": False,
    }


def trial_config_text(
    planned_text: str, changes: Mapping[str, object], subset_root: Path, output_dir: Path
) -> str:
    text = patch_yaml_text(planned_text, {**changes, **trial_overrides(subset_root, output_dir)})
    return set_list(set_list(text, "validation.samples", []), "validation.prompts", [], only_if_set=True)


def confirmation_config_text(
    planned_text: str,
    changes: Mapping[str, object],
    subset_root: Path,
    output_dir: Path,
    *,
    fused: bool = False,
) -> str:
    """The config's own validation, one prompt, a few inference steps, after a few steps."""
    steps = FUSED_STEPS if fused else CONFIRM_STEPS
    text = patch_yaml_text(
        planned_text,
        {
            **changes,
            **_common(subset_root, output_dir),
            "optimization.steps": steps,
            "validation.interval": steps,
            "validation.skip_initial_validation": True,
            "validation.inference_steps": CONFIRM_INFERENCE_STEPS,
        },
    )
    data = load_yaml(text)
    validation = trainer_config(data).validation
    samples = list(validation.samples or [])
    if samples:
        text = set_list(text, "validation.samples", [_plain(samples[0])])
    prompts = list(validation.prompts or [])
    if prompts and not samples:
        text = set_list(text, "validation.prompts", [str(prompts[0])])
    # a key of older trainers, not LtxTrainerConfig's: typed apart from today's keys
    if older_trainer_keys(data).validation.videos_per_prompt is not None:
        text = patch_yaml_text(text, {"validation.videos_per_prompt": 1})
    return text


def has_validation_prompts(text: str) -> bool:
    return bool(trainer_config(load_yaml(text)).validation.sample_list())


def _plain(value: object) -> object:
    """ruamel's commented containers as plain JSON-able values."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def set_list(text: str, path: str, value: list[Any], *, only_if_set: bool = False) -> str:
    """Set `path` (an existing key) to a list written in flow style (JSON is valid YAML).

    Only the key's value span changes, from the colon to the end of its last item; comments
    after the list stay. A missing key is added at the end of its section as `key: []`.
    """
    root = YAML(typ="rt").compose(text)
    *parents, last = path.split(".")
    node: Node | None = root
    for part in parents:
        node = _child(node, part)
    pair = _pair(node, last)
    if pair is None:
        if only_if_set or node is None:
            return text
        # new key: append through the scalar patcher with a placeholder, then replace it
        text = patch_yaml_text(text, {path: "__ltx_wizard_list__"})
        return text.replace('"__ltx_wizard_list__"', json.dumps(value), 1).replace(
            "__ltx_wizard_list__", json.dumps(value), 1
        )
    key, val = pair
    end = _leaf_end(val)
    while end > key.end_mark.index and text[end - 1] in " \t\r\n":
        end -= 1  # a block scalar's end mark runs on over blank lines and the next indent
    new = text[: key.end_mark.index] + ": " + yaml_json(value) + text[end:]
    got = YAML(typ="safe", pure=True).load(new)
    for part in path.split("."):
        got = got.get(part) if isinstance(got, dict) else None
    if got != value:
        raise YamlPatchError(f"cannot set {path} in the trial config; edit the file by hand")
    return new


def _child(node: Node | None, part: str) -> Node | None:
    pair = _pair(node, part)
    return pair[1] if pair else None


def _pair(node: Node | None, part: str) -> tuple[ScalarNode, Node] | None:
    if not isinstance(node, MappingNode):
        return None
    found = [(k, v) for k, v in node.value if isinstance(k, ScalarNode) and k.value == part]
    return found[0] if found else None


def _leaf_end(node: Node) -> int:
    """Where a value really ends: a block list's end mark runs on over trailing comments."""
    if isinstance(node, SequenceNode) and node.value and not node.flow_style:
        return _leaf_end(node.value[-1])
    if isinstance(node, MappingNode) and node.value and not node.flow_style:
        return _leaf_end(node.value[-1][1])
    end: int = node.end_mark.index
    return end


def settings_from_config(text: str) -> TrainSettings:
    """The autotune levers as the planned config sets them."""
    keys = trainer_config(load_yaml(text))
    optimization = keys.optimization
    checkpointing = optimization.enable_gradient_checkpointing
    return TrainSettings(
        quantization=keys.acceleration.quantization,
        optimizer_type=optimization.optimizer_type or "adamw",
        batch_size=optimization.batch_size if optimization.batch_size is not None else 1,
        gradient_accumulation_steps=(
            optimization.gradient_accumulation_steps
            if optimization.gradient_accumulation_steps is not None
            else 1
        ),
        gradient_checkpointing=checkpointing if checkpointing is not None else True,
        training_mode=keys.model.training_mode or "lora",
        lora_rank=keys.lora.rank or 16,
    )
