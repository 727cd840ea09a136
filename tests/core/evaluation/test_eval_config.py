"""eval-config.yaml against the trainer schema's rules the project mirrors (demo/sim/schema.py):
what the skill patches, what stays the run's, the mode's conditions, and nothing invented."""

from __future__ import annotations

import copy

from pathlib import Path

import pytest
from pydantic import ValidationError

from ltx_wizard.core.evaluation import eval_config
from ltx_wizard.core.evaluation.prompts import EvalPrompt
from ltx_wizard.core.io.yaml_patch import get_dotted, load_yaml
from ltx_wizard.demo.sim.schema import LtxTrainerConfig
from tests.eval_runs import final_checkpoint, finished_run

PROMPTS = [
    EvalPrompt("in-distribution", "a cat naps", "dataset.json row 1", media={"video": "/data/clips/c0.mp4"}),
    EvalPrompt("out-of-distribution", "a cat in space", "your prompt"),
]


@pytest.fixture
def run(model_tree, capsys):
    return finished_run(model_tree(), capsys)


def test_the_eval_config_is_what_the_skill_patches_and_the_schema_accepts(run):
    text = (run / "config.yaml").read_text()
    ckpt = final_checkpoint(run)
    out = eval_config.render(text, run, ckpt, PROMPTS)
    data = load_yaml(out)
    LtxTrainerConfig(**data)  # the simulated trainer's schema (extra keys forbidden) takes it
    expected = {
        "model.load_checkpoint": str(ckpt),
        "optimization.steps": 1,
        "validation.interval": 1,
        "validation.skip_initial_validation": False,
        "checkpoints.interval": None,
        "checkpoints.no_resume": True,
        "output_dir": str(run.resolve() / "outputs" / "eval"),
        "wandb.enabled": False,
        "hub.push_to_hub": False,
    }
    assert {k: get_dotted(data, k) for k in expected} == expected
    assert get_dotted(data, "validation.samples") == [
        {"prompt": "a cat naps", "seed": 42},
        {"prompt": "a cat in space", "seed": 42},
    ]
    before = load_yaml(text)
    for kept in (
        "acceleration.quantization",
        "validation.video_dims",
        "validation.frame_rate",
        "validation.video_cfg_scale",
        "validation.generate_audio",
        "optimization.batch_size",
        "optimization.gradient_accumulation_steps",
    ):
        assert get_dotted(data, kept, None) == get_dotted(before, kept, None), kept
    comments = [line for line in text.splitlines() if line.lstrip().startswith("#")]
    assert all(line in out for line in comments)  # a copy of config.yaml, comments and all


def test_without_the_lora_nothing_is_loaded_and_the_rest_is_identical(run):
    text = (run / "config.yaml").read_text()
    lora = load_yaml(eval_config.render(text, run, final_checkpoint(run), PROMPTS))
    base = load_yaml(eval_config.render(text, run, None, PROMPTS))
    LtxTrainerConfig(**base)
    assert get_dotted(base, "model.load_checkpoint") is None
    lora, base = copy.deepcopy(lora), copy.deepcopy(base)  # the parses are frozen: copies
    lora["model"].pop("load_checkpoint")
    base["model"].pop("load_checkpoint")
    assert lora == base


def test_the_retry_after_out_of_memory_halves_the_size_in_the_vaes_steps(run):
    text = (run / "config.yaml").read_text()
    dims = eval_config.smaller_dims((960, 544, 97))
    assert dims == (480, 256, 97) and all(d % 32 == 0 for d in dims[:2])
    data = load_yaml(eval_config.render(text, run, None, PROMPTS, dims))
    assert get_dotted(data, "validation.video_dims") == [480, 256, 97]
    LtxTrainerConfig(**data)


def test_a_conditioned_mode_gets_its_conditions_from_each_prompts_own_row():
    config = {
        "validation": {
            "samples": [
                {"prompt": "x", "conditions": [{"type": "first_frame", "image_or_video": "/run/f.png"}]},
                {"prompt": "y"},
            ]
        }
    }
    samples = eval_config.samples(config, PROMPTS)
    assert samples[0]["conditions"] == [{"type": "first_frame", "image_or_video": "/data/clips/c0.mp4"}]
    # a prompt without a row of its own keeps the run's validation file
    assert samples[1]["conditions"] == [{"type": "first_frame", "image_or_video": "/run/f.png"}]
    ref = {"validation": {"reference_videos": ["/r.mp4"], "prompts": ["p"]}}
    row = EvalPrompt("held-out", "z", "h", media={"reference_video": "/h/ref.mp4"})
    assert eval_config.samples(ref, [row])[0]["conditions"] == [{"type": "reference", "video": "/h/ref.mp4"}]
    mask = {
        "validation": {
            "samples": [
                {"prompt": "m", "conditions": [{"type": "mask", "video": "/v.mp4", "mask": "/m.mp4"}]}
            ]
        }
    }
    row = EvalPrompt("held-out", "z", "h", media={"video": "/h/v.mp4", "video_mask": "/h/m.mp4"})
    assert eval_config.samples(mask, [row])[0]["conditions"] == [
        {"type": "mask", "video": "/h/v.mp4", "mask": "/h/m.mp4"}
    ]


def test_the_simulated_trainer_refuses_an_ic_lora_eval_without_references(tmp_path):
    data = {
        "model": {"model_path": str(tmp_path)},
        "lora": {"rank": 8},
        "training_strategy": {"name": "video_to_video"},
        "data": {"preprocessed_data_root": str(tmp_path)},
        "validation": {"interval": 1, "samples": [{"prompt": "no reference"}]},
    }
    (tmp_path / "latents").mkdir()
    (tmp_path / "conditions").mkdir()
    (tmp_path / "reference_latents").mkdir()
    with pytest.raises(ValidationError, match="reference conditions must be provided"):
        LtxTrainerConfig(**data)
    data["validation"]["samples"] = eval_config.samples(
        {"validation": {"reference_videos": [str(Path(tmp_path) / "r.mp4")]}},
        [EvalPrompt("in-distribution", "p", "s")],
    )
    LtxTrainerConfig(**data)
