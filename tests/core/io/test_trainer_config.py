"""The typed view of the trainer config keys the wizard reads (core/io/trainer_config.py): every
field it names is one the trainer declares, nested as the trainer nests it; what it reads from a
real-shaped config.yaml."""

from __future__ import annotations

import ast
import os
import subprocess
from pathlib import Path

import msgspec
import pytest

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.io.trainer_config import (
    StrategyKeys,
    TrainerConfig,
    older_trainer_keys,
    trainer_config,
    value_at,
    written_keys,
)
from ltx_wizard.core.io.yaml_patch import load_yaml

# The trainer's field names, read off Lightricks/LTX-2 packages/ltx-trainer/src/ltx_trainer/config.py
# at commit 400fd31054597515f47125691032c04b1c3ee24e: LtxTrainerConfig's own fields ("") and, for
# each section, its class's (ModelConfig, LoraConfig, OptimizationConfig, AccelerationConfig,
# DataConfig, ValidationConfig, CheckpointsConfig, HubConfig, WandbConfig, FlowMatchingConfig).
TRAINER_COMMIT = "400fd31054597515f47125691032c04b1c3ee24e"
TRAINER_FILE = "packages/ltx-trainer/src/ltx_trainer/config.py"
TRAINER_KEYS: dict[str, set[str]] = {
    "": {
        "model", "lora", "training_strategy", "optimization", "acceleration", "data", "validation",
        "checkpoints", "hub", "flow_matching", "wandb", "seed", "output_dir",
    },
    "model": {
        "model_path", "text_encoder_path", "video_vae_path", "audio_vae_path", "training_mode",
        "load_checkpoint",
    },
    "lora": {"rank", "alpha", "dropout", "target_modules"},
    "optimization": {
        "learning_rate", "steps", "batch_size", "gradient_accumulation_steps", "max_grad_norm",
        "optimizer_type", "scheduler_type", "scheduler_params", "enable_gradient_checkpointing",
    },
    "acceleration": {
        "mixed_precision_mode", "quantization", "load_text_encoder_in_8bit",
        "offload_optimizer_during_validation",
    },
    "data": {"preprocessed_data_root", "num_dataloader_workers"},
    "validation": {
        "samples", "prompts", "negative_prompt", "images", "reference_videos",
        "reference_downscale_factor", "video_dims", "frame_rate", "seed", "inference_steps", "interval",
        "video_cfg_scale", "audio_cfg_scale", "video_stg_scale", "audio_stg_scale", "stg_blocks",
        "guidance_rescale", "video_modality_guidance_scale", "audio_modality_guidance_scale",
        "generate_audio", "generate_video", "skip_initial_validation", "include_reference_in_output",
    },
    "checkpoints": {"interval", "keep_last_n", "precision", "no_resume", "save_training_state"},
    "hub": {"push_to_hub", "hub_model_id"},
    "wandb": {"enabled", "project", "entity", "tags", "log_validation_videos"},
    "flow_matching": {"timestep_sampling_mode", "timestep_sampling_params"},
}  # fmt: skip
# A fetched snapshot of the trainer's repository (a git directory), for the check against the real class.
MIRROR = Path(os.environ.get("LTX2_MIRROR", "/work/.mirror/Lightricks+LTX-2/repo"))


def _view_keys(struct: type = TrainerConfig, prefix: str = "") -> dict[str, set[str]]:
    """The view's field names per section, nested as it nests them."""
    found = {prefix: set()}
    for field in msgspec.structs.fields(struct):
        found[prefix].add(field.name)
        kind = field.type
        if isinstance(kind, type) and issubclass(kind, msgspec.Struct):
            found.update(_view_keys(kind, field.name))
    return found


def test_every_key_the_view_names_is_the_trainers_and_nested_as_it_nests_them():
    view = _view_keys()
    assert set(view) <= set(TRAINER_KEYS)
    for section, names in view.items():
        assert names <= TRAINER_KEYS[section], (section, names - TRAINER_KEYS[section])
    sections = {s for s in view if s}
    assert sections == {
        "model",
        "lora",
        "optimization",
        "acceleration",
        "data",
        "validation",
        "checkpoints",
        "wandb",
    }


class _OlderValidation(msgspec.Struct):
    videos_per_prompt: int | None = None  # an older trainer's key, not LtxTrainerConfig's


class _OlderView(msgspec.Struct):
    validation: _OlderValidation


def test_the_check_sees_a_key_the_trainer_does_not_declare():
    view = _view_keys(_OlderView)
    assert not view["validation"] <= TRAINER_KEYS["validation"]


def _real_keys(source: str) -> dict[str, set[str]]:
    classes = {node.name: node for node in ast.parse(source).body if isinstance(node, ast.ClassDef)}

    def fields(name: str) -> dict[str, ast.expr]:
        return {
            n.target.id: n.annotation
            for n in classes[name].body
            if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
        }

    top = fields("LtxTrainerConfig")
    found = {"": set(top)}
    for name, annotation in top.items():
        named = {n.id for n in ast.walk(annotation) if isinstance(n, ast.Name)} & set(classes)
        for cls in named:  # a section of its own (the strategies' union lives in other files)
            found[name] = set(fields(cls))
    return found


@pytest.mark.skipif(not MIRROR.is_dir(), reason="no fetched Lightricks/LTX-2 snapshot")
def test_the_field_names_match_the_real_ltx_trainer_config():
    source = subprocess.run(
        ["git", f"--git-dir={MIRROR / '.git' if (MIRROR / '.git').exists() else MIRROR}", "show",
         f"HEAD:{TRAINER_FILE}"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    real = _real_keys(source)
    for section, names in _view_keys().items():
        assert names <= real[section], (section, names - real[section])
    assert real == TRAINER_KEYS  # else: the trainer moved on from TRAINER_COMMIT; re-read it


CONFIG = """\
model:
  model_path: /models/ltx-2.safetensors
  training_mode: lora
lora: null
training_strategy:
  name: text_to_video
  with_audio: true
optimization:
  steps: "2000"
  batch_size: 1
validation:
  prompts: [a cat, a dog]
  video_dims: [960, 544, 97]
  frame_rate: 25
  interval: null
some_newer_key: {anything: 1}
"""


def test_it_reads_what_the_yaml_says_and_passes_over_the_rest():
    keys = trainer_config(load_yaml(CONFIG))
    assert keys.model.model_path == "/models/ltx-2.safetensors"
    assert keys.lora.rank is None  # lora: null reads as an empty section
    assert keys.training_strategy == {"name": "text_to_video", "with_audio": True}
    assert keys.optimization.steps == 2000  # pydantic's lax int, as the trainer reads it
    assert keys.validation.frame_rate == 25.0 and keys.validation.video_dims == [960, 544, 97]
    assert keys.validation.interval is None  # null: validation off
    assert keys.validation.sample_list() == [{"prompt": "a cat"}, {"prompt": "a dog"}]


def test_an_absent_validation_interval_is_the_trainers_default():
    assert trainer_config(load_yaml("validation: {prompts: [a]}\n")).validation.interval == 100


def test_a_wrong_type_is_refused_with_the_file_and_the_key():
    with pytest.raises(UsageError) as err:
        trainer_config(load_yaml("optimization:\n  steps: many\n"), "RUN/config.yaml")
    assert "RUN/config.yaml" in err.value.message and "optimization.steps" in err.value.message


def test_the_round_trip_loaders_scalars_read_as_numbers():
    """The plan reads config.yaml through ruamel's round-trip loader: its floats are ScalarFloat."""
    import io

    from ruamel.yaml import YAML

    data = YAML().load(io.StringIO("validation:\n  frame_rate: 25.0\n  interval: 250\nlora: {rank: 32}\n"))
    keys = trainer_config(data)
    assert (keys.validation.frame_rate, keys.validation.interval, keys.lora.rank) == (25.0, 250, 32)


@pytest.mark.parametrize(
    ("yaml", "words"),
    [
        ("optimization:\n  batch_size: lots\n", "optimization.batch_size is 'lots', expected a whole number"),
        ("validation:\n  video_dims: [960, wide, 97]\n", "validation.video_dims[1] is 'wide'"),
        ("data:\n  preprocessed_data_root: [a, b]\n", "data.preprocessed_data_root is ['a', 'b'], expected a string"),
        ("training_strategy:\n  with_audio: maybe\n", "training_strategy.with_audio is 'maybe', expected true or false"),
        ("training_strategy: [t2v]\n", "training_strategy is ['t2v'], expected a section of keys"),
        ("validation: 5\n", "validation is 5, expected a section of keys"),
    ],
)  # fmt: skip
def test_a_refusal_names_the_file_the_key_the_value_and_what_it_wants(yaml, words):
    with pytest.raises(UsageError) as err:
        trainer_config(load_yaml(yaml), "RUN/config.yaml")
    assert err.value.message.startswith(f"RUN/config.yaml: {words}")


def test_an_older_trainers_key_is_typed_apart_from_todays():
    config = load_yaml("validation:\n  videos_per_prompt: 2\n  interval: 50\n")
    assert older_trainer_keys(config).validation.videos_per_prompt == 2
    assert "videos_per_prompt" not in TrainerConfig.__struct_fields__
    with pytest.raises(UsageError, match=r"^RUN/config.yaml: validation.videos_per_prompt is 'two'"):
        older_trainer_keys(load_yaml("validation: {videos_per_prompt: two}\n"), "RUN/config.yaml")


def test_the_keys_a_file_writes_null_included_and_their_typed_values():
    config = load_yaml("lora: {rank: 8}\nacceleration:\n  quantization: null\noutput_dir: out\n")
    assert written_keys(config) == {
        "lora",
        "lora.rank",
        "acceleration",
        "acceleration.quantization",
        "output_dir",
    }
    keys = trainer_config(config)
    assert value_at(keys, "lora.rank") == 8 and value_at(keys, "acceleration.quantization") is None
    with pytest.raises(AttributeError):
        value_at(keys, "lora.ranks")


def test_every_key_the_plan_table_and_the_tiers_show_is_one_the_view_names():
    from ltx_wizard.core.gpu.tiers import Tier, policy_for
    from ltx_wizard.core.plan.plan_md import TABLE_KEYS

    keys = trainer_config({})
    shown = [key for key, _ in TABLE_KEYS] + [c.key for t in Tier for c in policy_for(t).key_choices]
    for key in shown:
        value_at(keys, key)  # AttributeError for a key the view does not name


def test_the_strategy_keys_are_the_trainers():
    """StrategyKeys' fields, read off the trainer's training_strategies/ (TRAINER_COMMIT):
    base_strategy.py TrainingStrategyConfigBase.name, text_to_video.py TextToVideoConfig.with_audio."""
    assert set(StrategyKeys.__struct_fields__) == {"name", "with_audio"}
    keys = trainer_config(load_yaml("training_strategy: {name: text_to_video, with_audio: true, x: 1}\n"))
    assert keys.strategy() == StrategyKeys(name="text_to_video", with_audio=True)
    assert keys.training_strategy == {"name": "text_to_video", "with_audio": True, "x": 1}  # whole
