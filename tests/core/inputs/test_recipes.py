"""Recipes: which shipped configs are offered, and the low-VRAM difference applied to each."""

from __future__ import annotations

from pathlib import Path

import pytest

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.inputs.recipes import (
    describe_applied,
    find_recipe,
    list_recipes,
    low_vram_delta,
    plan_base,
    recipe_base,
    recipe_notes,
)
from ltx_wizard.core.gpu.tiers import Tier
from ltx_wizard.core.io.yaml_patch import load_yaml

# Shaped like the trainer's shipped files (comments, flow lists, nested strategy blocks); values
# are the ones that matter here.
_HEAD = """\
# {title}
model:
  model_path: "path/to/model.safetensors"
  training_mode: "lora"
lora:
  # Typical values: 8, 16, 32
  rank: {rank}
  alpha: {rank}
  target_modules:
    - "to_k"
    - "to_q"
training_strategy:
  name: "flexible"
{strategy}
optimization:
  batch_size: 1
  optimizer_type: "{optimizer}"
acceleration:
  quantization: {quant}
  load_text_encoder_in_8bit: {te8}
{offload}data:
  preprocessed_data_root: "/path/to/data"
validation:
  video_dims: [ 960, 544, 89 ]  # width, height, frames
wandb:
  tags: [ "ltx2", "lora", "{tag}" ]
output_dir: "outputs/{tag}"
"""

T2V_STRATEGY = """\
  video:
    is_generated: true
    latents_dir: "latents"
  audio:
    is_generated: true
    latents_dir: "audio_latents"
"""


def _config(
    *,
    title="t2v",
    rank=32,
    strategy=T2V_STRATEGY,
    optimizer="adamw",
    quant="null",
    te8="false",
    offload="  offload_optimizer_during_validation: false\n",
    tag="t2v",
) -> str:
    return _HEAD.format(
        title=title,
        rank=rank,
        strategy=strategy.rstrip("\n"),
        optimizer=optimizer,
        quant=quant,
        te8=te8,
        offload=offload,
        tag=tag,
    )


STANDARD = _config()
LOW_VRAM = _config(
    title="t2v low VRAM",
    rank=16,
    optimizer="adamw8bit",
    quant='"int8-quanto"',
    te8="true",
    offload="  offload_optimizer_during_validation: true\n",
    tag="t2v-low",
).replace("[ 960, 544, 89 ]", "[ 576, 576, 49 ]")

I2V = _config(
    title="i2v",
    tag="i2v",
    strategy=T2V_STRATEGY.replace(
        '    latents_dir: "latents"\n',
        '    latents_dir: "latents"\n    conditions:\n      - type: first_frame\n        probability: 0.5\n',
        1,
    ),
)
IC_LORA = _config(
    title="v2v IC-LoRA",
    tag="v2v-ic",
    strategy="""\
  video:
    is_generated: true
    latents_dir: "latents"
    conditions:
      - type: reference
        latents_dir: "reference_latents"
""",
)
# An older recipe without the offload key: the difference must not invent it.
T2A_NO_OFFLOAD = _config(
    title="t2a",
    tag="t2a",
    offload="",
    strategy="""\
  audio:
    is_generated: true
    latents_dir: "audio_latents"
""",
)
INPAINT = _config(
    title="inpaint",
    tag="inpaint",
    strategy="""\
  video:
    is_generated: true
    latents_dir: "latents"
    conditions:
      - type: mask
        mask_dir: "video_masks"
""",
)


@pytest.fixture()
def configs(tmp_path: Path) -> Path:
    folder = tmp_path / "configs"
    (folder / "accelerate").mkdir(parents=True)
    files = {
        "t2v_lora.yaml": STANDARD,
        "t2v_lora_low_vram.yaml": LOW_VRAM,
        "i2v_lora.yaml": I2V,
        "v2v_ic_lora.yaml": IC_LORA,
        "t2a_lora.yaml": T2A_NO_OFFLOAD,
        "video_inpainting_lora.yaml": INPAINT,
        # Not recipes: an accelerate config, a file with a key the schema forbids, broken YAML.
        "accelerate/ddp.yaml": "distributed_type: MULTI_GPU\nnum_processes: 4\n",
        "notes.yaml": "title: my notes\nitems: [1, 2]\n",
        "extra_key.yaml": I2V + "my_setting: 3\n",
        "broken.yaml": "model: [unclosed\n",
    }
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def test_list_offers_trainer_configs_t2v_first_and_skips_the_rest(configs: Path) -> None:
    names = [r.name for r in list_recipes(configs)]
    assert names == ["t2v_lora", "i2v_lora", "t2a_lora", "v2v_ic_lora", "video_inpainting_lora"]


def test_modes_are_named_from_the_strategy_blocks(configs: Path) -> None:
    modes = {r.name: r.modes for r in list_recipes(configs)}
    assert modes["t2v_lora"] == "video generated + audio generated"
    assert modes["i2v_lora"] == "video generated (first_frame) + audio generated"
    assert modes["v2v_ic_lora"] == "video generated (reference)"
    assert modes["t2a_lora"] == "audio generated"
    assert modes["video_inpainting_lora"] == "video generated (mask)"


def test_unknown_recipe_names_the_ones_found(configs: Path) -> None:
    with pytest.raises(UsageError) as err:
        find_recipe(configs, "x2y_lora")
    assert "i2v_lora" in err.value.message and "--recipe" in err.value.message
    assert find_recipe(configs, "i2v_lora.yaml").name == "i2v_lora"


def test_low_vram_delta_is_the_memory_difference_without_bookkeeping() -> None:
    assert low_vram_delta(STANDARD, LOW_VRAM) == {
        "lora.rank": 16,
        "lora.alpha": 16,
        "optimization.optimizer_type": "adamw8bit",
        "acceleration.quantization": "int8-quanto",
        "acceleration.load_text_encoder_in_8bit": True,
        "acceleration.offload_optimizer_during_validation": True,
        "validation.video_dims": [576, 576, 49],
    }


@pytest.mark.parametrize("tier", [Tier.T32, Tier.T40_60])
def test_low_tiers_apply_the_difference_to_other_recipes(configs: Path, tier: Tier) -> None:
    recipe = find_recipe(configs, "i2v_lora")
    base = recipe_base(recipe, tier, standard_text=STANDARD, low_vram_text=LOW_VRAM, recipe_text=I2V)
    assert base.source == "i2v_lora.yaml"
    assert set(base.applied) == set(low_vram_delta(STANDARD, LOW_VRAM))
    written = load_yaml(base.text)
    assert written["acceleration"]["quantization"] == "int8-quanto"
    assert list(written["validation"]["video_dims"]) == [576, 576, 49]
    # The recipe's own strategy (its conditions) is untouched, and so is every other line.
    assert written["training_strategy"]["video"]["conditions"][0]["type"] == "first_frame"
    changed = [a for a, b in zip(I2V.splitlines(), base.text.splitlines()) if a != b]
    assert len(changed) == 7 and len(I2V.splitlines()) == len(base.text.splitlines())
    assert "# width, height, frames" in base.text
    assert "`lora.rank: 16` (from t2v_lora_low_vram.yaml)" in describe_applied(base)


def test_a_key_the_recipe_lacks_is_not_invented(configs: Path) -> None:
    recipe = find_recipe(configs, "t2a_lora")
    base = recipe_base(
        recipe, Tier.T32, standard_text=STANDARD, low_vram_text=LOW_VRAM, recipe_text=T2A_NO_OFFLOAD
    )
    assert "acceleration.offload_optimizer_during_validation" in base.skipped
    assert "offload_optimizer_during_validation" not in base.text


def test_80gb_uses_the_recipe_verbatim_and_t2v_its_own_low_vram_file(configs: Path) -> None:
    i2v = find_recipe(configs, "i2v_lora")
    top = recipe_base(i2v, Tier.T80, standard_text=STANDARD, low_vram_text=LOW_VRAM, recipe_text=I2V)
    assert top.text == I2V and top.applied == {}
    t2v = find_recipe(configs, "t2v_lora")
    low = recipe_base(t2v, Tier.T32, standard_text=STANDARD, low_vram_text=LOW_VRAM, recipe_text=STANDARD)
    assert low.text == LOW_VRAM and low.source == "t2v_lora_low_vram.yaml" and low.applied == {}


EXTEND = _config(title="extend", tag="extend").replace(
    """\
validation:
""",
    """\
validation:
  samples:
    - prompt: "a kite"
      conditions:
        - type: prefix
          video: "/nowhere/prefix.mp4"
          num_frames: 57
    - prompt: "a cat"
      video_dims: [960, 544, 89]   # its own length: not the applied one
      conditions:
        - type: prefix
          video: "/nowhere/prefix.mp4"
          num_frames: 57
""",
)


def _start(configs: Path, name: str, text: str, tier: Tier):
    (configs / f"{name}.yaml").write_text(text, encoding="utf-8")
    return plan_base(configs, name, tier, lambda p: p.read_text(encoding="utf-8"))


def test_plan_base_diffs_a_recipe_against_its_own_file_and_t2v_against_its_twin(configs: Path):
    i2v = plan_base(configs, "i2v_lora", Tier.T40_60, lambda p: p.read_text(encoding="utf-8"))
    assert i2v.shipped_path.name == "i2v_lora.yaml" and i2v.shipped_text == I2V
    assert i2v.base.text != I2V  # the low-VRAM keys, applied
    t2v = plan_base(configs, "t2v_lora", Tier.T32, lambda p: p.read_text(encoding="utf-8"))
    assert t2v.shipped_path.name == "t2v_lora_low_vram.yaml" and t2v.base.text == LOW_VRAM


def test_too_long_prefixes_are_warned_and_media_are_left_to_the_plan(configs: Path):
    # The shipped media are no longer warned about here: the plan writes the user's files or
    # none into config.yaml (core/validation/validation_choice.py), so a placeholder never reaches the trainer.
    start = _start(configs, "video_extend_lora", EXTEND, Tier.T32)
    (frames,) = recipe_notes(start, Tier.T32).warnings
    # Only the sample that inherits the applied 49 frames is warned about.
    assert frames.startswith(
        "validation.samples[0].conditions[0].num_frames 57 is not shorter than the 49 frames"
    )
    assert (
        recipe_notes(_start(configs, "video_extend_lora", EXTEND, Tier.T80), Tier.T80).warnings == ()
    )  # 80GB+: the recipe's own 89 frames


def test_notes_leave_out_keys_the_plan_sets_again(configs: Path):
    start = plan_base(configs, "i2v_lora", Tier.T32, lambda p: p.read_text(encoding="utf-8"))
    notes = recipe_notes(start, Tier.T32, overridden={"acceleration.quantization": None})
    assert not any("quantization" in line for line in notes.applied)
    assert any(w.startswith("acceleration.quantization: set again") for w in notes.warnings)
    assert len(notes.applied) == len(low_vram_delta(STANDARD, LOW_VRAM)) - 1
