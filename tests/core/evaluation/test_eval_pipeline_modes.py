"""Which ltx-pipelines entry point renders each training mode (or why none), the release files it
needs found beside the checkpoint, the flags its parser takes, and the conditioning each prompt
is fed (a clip's first frame decoded into a PNG inside the run folder)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ltx_wizard.core.evaluation import pipeline_files, production
from ltx_wizard.core.evaluation import render_conditioning as conditioning
from ltx_wizard.core.evaluation.pipeline_modes import A2V, I2V, IC_LORA, T2A, T2V, mode_for
from ltx_wizard.core.evaluation.prompts import EvalPrompt
from ltx_wizard.core.io.yaml_patch import load_yaml
from ltx_wizard.demo.lookalike_checkout import STANDARD_TEXT
from ltx_wizard.demo.lookalike_recipes import RECIPES, recipe_text
from ltx_wizard.demo.tiny_video import write_render
from tests.eval_runs import write_weights

RECIPE = {r.name: load_yaml(recipe_text(r)) for r in RECIPES}


@pytest.mark.parametrize(
    "recipe, mode", [("i2v_lora", I2V), ("v2v_ic_lora", IC_LORA), ("a2v_lora", A2V), ("t2a_lora", T2A)]
)
def test_each_recipe_family_gets_its_entry_point(recipe, mode):
    assert mode_for(RECIPE[recipe]) is mode
    assert mode_for(load_yaml(STANDARD_TEXT)) is T2V


@pytest.mark.parametrize(
    "recipe, words",
    [
        ("video_inpainting_lora", "a mask to inpaint"),
        ("video_extend_lora", "a prefix to extend (video or audio extension)"),
    ],
)
def test_modes_no_entry_point_takes_say_why(recipe, words):
    assert mode_for(RECIPE[recipe]) == (
        f"the run validates with {words}, which no ltx-pipelines entry point takes on its command line"
    )


def test_legacy_and_frozen_modality_configs():
    legacy = {
        "training_strategy": {"name": "video_to_video"},
        "validation": {"reference_videos": ["/r.mp4"], "prompts": ["p"]},
    }
    assert mode_for(legacy) is IC_LORA
    v2a = {
        "training_strategy": {
            "name": "flexible",
            "video": {"is_generated": False},
            "audio": {"is_generated": True},
        },
        "validation": {
            "samples": [{"prompt": "p", "conditions": [{"type": "video_to_audio", "video": "/v.mp4"}]}]
        },
    }
    assert "a video to generate the sound of (video-to-audio)" in mode_for(v2a)
    a2a = {
        "training_strategy": {"name": "flexible", "audio": {"is_generated": True}},
        "validation": {
            "samples": [{"prompt": "p", "conditions": [{"type": "reference", "audio": "/a.wav"}]}]
        },
    }
    assert "an audio reference" in mode_for(a2a)


def test_release_files_are_found_beside_the_checkpoint_in_both_layouts(tmp_path):
    unified = write_weights(tmp_path / "ltx-2.3" / "ltx-2.3-22b-dev.safetensors")
    config = {"model": {"model_path": str(unified)}}
    found, why = pipeline_files.extras(config, IC_LORA)
    assert found == {} and "needs the distilled checkpoint" in why and str(unified) in why
    older = write_weights(unified.parent / "ltx-2.3-22b-distilled.safetensors")
    newer = write_weights(unified.parent / "ltx-2.3-22b-distilled-1.1.safetensors")
    write_weights(unified.parent / "ltx-2.3-22b-distilled-lora-384-1.1.safetensors")
    up = write_weights(unified.parent / "ltx-2.3-spatial-upscaler-x2-1.1.safetensors")
    write_weights(unified.parent / "ltx-2.3-spatial-upscaler-x1.5-1.0.safetensors")
    assert pipeline_files.extras(config, IC_LORA) == (
        {"distilled_checkpoint": newer, "spatial_upsampler": up},
        None,
    )
    assert older.name > newer.name  # by name alone the unversioned file would win
    # a split pack as `hf download` lays it out: transformer, VAEs, upscalers, LoRAs in folders
    root = tmp_path / "ltx-2.5"
    dev = write_weights(root / "diffusion_models" / "ltx-2.5-22b-dev-transformer-bf16.safetensors")
    split = {"model": {"model_path": str(dev), "video_vae_path": str(root / "vae" / "v.safetensors")}}
    transformer = write_weights(
        root / "diffusion_models" / "ltx-2.5-22b-distilled-transformer-bf16.safetensors"
    )
    up25 = write_weights(
        root / "latent_upscale_models" / "ltx-2.5-latent-spatial-upscaler-x2-bf16-1.0.safetensors"
    )
    lora = write_weights(root / "loras" / "ltx-2.5-22b-distilled-lora-450-bf16.safetensors")
    assert pipeline_files.extras(split, IC_LORA)[0] == {
        "distilled_checkpoint": transformer,
        "spatial_upsampler": up25,
    }
    assert pipeline_files.extras(split, A2V)[0] == {"distilled_lora": lora, "spatial_upsampler": up25}


def test_each_parser_gets_only_the_settings_it_takes():
    config = load_yaml(STANDARD_TEXT)
    t2v = production.settings_args(config, T2V)
    assert "--num-inference-steps" in t2v and "--video-cfg-guidance-scale" in t2v
    assert production.settings_args(config, IC_LORA) == [
        "--frame-rate",
        str(config["validation"]["frame_rate"]),
    ]  # the distilled parser
    t2a = production.settings_args(config, T2A)
    assert "--audio-cfg-guidance-scale" in t2a and not any("video" in a for a in t2a)
    assert production.fit_dims((608, 544, 89), 64) == (576, 512, 89)
    assert production.fit_dims((40, 40, 9), 64) == (64, 64, 9)


def test_a_clips_first_frame_becomes_a_png_in_the_run_folder(tmp_path):
    import av

    run = tmp_path / "run"
    run.mkdir()
    clip = write_render(tmp_path / "clips" / "c0.mp4", "a kite", 7, None, 9)
    template = [{"type": "first_frame", "image_or_video": "/run/own.png"}]
    prompt = EvalPrompt("in-distribution", "a kite", "dataset.json row 1", media={"video": str(clip)})
    args, words = conditioning.inputs(run, template, prompt, "in-distribution/01_a-kite")
    png = run / "outputs/eval/inputs/in-distribution/01_a-kite.first-frame.png"
    assert args == ["--image", str(png), "0", "1.0"]
    assert words == f"first frame: {clip} -> {png}"
    with av.open(str(png)) as still, av.open(str(clip)) as video:
        assert still.streams.video[0].codec_context.name == "png"
        assert bytes(next(still.decode(video=0)).to_ndarray(format="rgb24")) == bytes(
            next(video.decode(video=0)).to_ndarray(format="rgb24")
        )
    # a still of the run's own is passed as it is; a row without the column keeps it
    own = EvalPrompt("out-of-distribution", "x", "your prompt")
    assert conditioning.inputs(run, template, own, "out-of-distribution/01_x")[0] == [
        "--image",
        "/run/own.png",
        "0",
        "1.0",
    ]
    broken = tmp_path / "broken.mp4"
    broken.write_bytes(b"not a video")
    with pytest.raises(conditioning.InputError, match="cannot take the first frame of"):
        conditioning.inputs(
            run, template, EvalPrompt("held-out", "y", "h", media={"video": str(broken)}), "held-out/01_y"
        )


def test_references_and_sounds_are_passed_with_the_trainers_strength(tmp_path):
    reference = [{"type": "reference", "video": "/run/ref.mp4", "downscale_factor": 1}]
    row = EvalPrompt("held-out", "p", "h", media={"reference_video": "/h/r.mp4"})
    assert conditioning.inputs(tmp_path, reference, row, "held-out/01_p") == (
        ["--video-conditioning", "/h/r.mp4", "1.0"],
        "reference video: /h/r.mp4",
    )
    audio = [{"type": "audio_to_video", "audio": "/run/a.wav"}]
    row = EvalPrompt("held-out", "p", "h", media={"audio": "/h/a.wav"})
    assert conditioning.inputs(tmp_path, audio, row, "held-out/01_p") == (
        ["--audio-path", "/h/a.wav"],
        "audio: /h/a.wav",
    )
    assert not Path(tmp_path / "outputs").exists()  # nothing written for these


def test_the_results_help_names_each_entry_point_and_how_pictures_are_chosen():
    from ltx_wizard.core.evaluation.pipeline_modes import MODES
    from ltx_wizard.tui.dialogs.help import help_for_class
    from ltx_wizard.tui.screens.results import ResultsScreen
    from ltx_wizard.tui.images.choice import CHOICES, TMUX_SETTING

    body = " ".join(help_for_class(ResultsScreen)[1].split())
    assert all(f"`{mode.module.rpartition('.')[2]}`" in body for mode in MODES)
    assert TMUX_SETTING in body and f"--graphics {'|'.join(CHOICES[1:])}" in body
