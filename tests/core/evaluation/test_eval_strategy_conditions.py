"""A run planned without validation media still trains its mode: the evaluation reads the
conditions off the training strategy and fills each from the prompt's own dataset row."""

from __future__ import annotations

import pytest

from ltx_wizard.core.evaluation.eval_config import run_conditions, sample_conditions, samples
from ltx_wizard.core.evaluation.pipeline_modes import A2V, I2V, IC_LORA, mode_for
from ltx_wizard.core.evaluation.prompts import EvalPrompt
from ltx_wizard.core.io.yaml_patch import load_yaml
from ltx_wizard.core.validation.validation_choice import plan_validation
from ltx_wizard.demo.lookalike_recipes import RECIPES, recipe_text

RECIPE = {r.name: r for r in RECIPES}


def _planned_without_media(name):
    """The recipe as `plan` writes it by default: validation on the prompts only."""
    return load_yaml(plan_validation(recipe_text(RECIPE[name])).text)


@pytest.mark.parametrize(
    "recipe, mode, condition",
    [
        ("i2v_lora", I2V, {"type": "first_frame", "image_or_video": "/d/clips/c0.mp4"}),
        ("v2v_ic_lora", IC_LORA, {"type": "reference", "video": "/d/clips/r0.mp4"}),
        ("a2v_lora", A2V, {"type": "audio_to_video", "audio": "/d/clips/c0.mp4"}),
    ],
)
def test_a_conditioned_mode_planned_without_media_keeps_its_mode_and_its_rows_inputs(recipe, mode, condition):
    config = _planned_without_media(recipe)
    assert "conditions" not in str(config["validation"]["samples"])  # the plan removed them
    assert mode_for(config) is mode  # not ti2vid_one_stage's text-to-video
    row = {"video": "/d/clips/c0.mp4", "reference_video": "/d/clips/r0.mp4"}
    assert sample_conditions(run_conditions(config), row) == [condition]
    prompt = EvalPrompt("in-distribution", "a cat", "dataset.json row 1", media=row)
    assert samples(config, [prompt])[0]["conditions"] == [condition]


def test_a_rows_own_audio_file_wins_over_its_clip_and_the_runs_own_wav():
    template = [{"type": "audio_to_video", "audio": "/media/rain_1.wav"}]
    assert sample_conditions(template, {"video": "/d/c0.mp4"}) == [
        {"type": "audio_to_video", "audio": "/d/c0.mp4"}
    ]
    own = {"video": "/d/c0.mp4", "audio": "/d/a0.wav"}
    assert sample_conditions(template, own) == [{"type": "audio_to_video", "audio": "/d/a0.wav"}]
    assert sample_conditions(template, {}) == template  # a prompt without a row: the run's file


def test_a_condition_no_row_and_no_file_can_fill_is_left_out():
    config = _planned_without_media("v2v_ic_lora")
    prompt = EvalPrompt("out-of-distribution", "a dog", "your prompt")
    assert "conditions" not in samples(config, [prompt])[0]
