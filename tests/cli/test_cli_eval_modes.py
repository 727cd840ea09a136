"""Production renders beyond text-to-video, end to end on the simulated trainer and the simulated
ltx-pipelines (which parses the look-alike checkout's copies of the real entry points' parsers):
each mode through its own entry point, fed the conditioning of the trainer's own validation
sample, each render recording which entry point made it and what it was fed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.evaluation.keyframes import decode
from ltx_wizard.core.evaluation.summary_lines import evaluation_lines
from ltx_wizard.core.io.yaml_patch import patch_yaml_text
from tests.eval_runs import CAPTIONS, finished_recipe_run, write_weights

CAPTIONS_0 = CAPTIONS[0]


@pytest.fixture(autouse=True)
def _fast_sim(monkeypatch):
    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "0")


def _eval(capsys, run, *extra):
    code = main(["eval", str(run), "--yes", "--simulate", "h100", "--no-base", *map(str, extra)])
    out, err = capsys.readouterr()
    return code, out, err


def _pipelines(run) -> dict:
    renders = json.loads((run / "outputs/eval/prompts.json").read_text())["renders"]
    return {name: entry for name, entry in renders.items() if entry["made_by"] == "ltx-pipelines"}


def _rgb(path, index=0) -> bytes:
    import av

    with av.open(str(path)) as container:
        for n, frame in enumerate(container.decode(video=0)):
            if n == index:
                return bytes(frame.to_ndarray(format="rgb24"))
    raise AssertionError(f"{path} has no frame {index}")


def _release_files(model, *names):
    """The release's extra files beside the run's checkpoint, named as the release names them."""
    return [write_weights(model.parent / name) for name in names]


def test_image_to_video_is_fed_each_prompts_first_frame(model_tree, capsys):
    box = model_tree()
    run = finished_recipe_run(box, capsys, "i2v_lora")
    code, out, err = _eval(capsys, run, "--production", "yes", "--prompt", "a cat in space")
    assert code == 0, err
    assert "ltx_pipelines.ti2vid_one_stage (image-to-video)" in out
    assert "each render fed the first frame of its trainer sample" in out
    made = _pipelines(run)
    assert len(made) == 3 + 1
    first = made["in-distribution/01_a-tabby-cat-number-0-naps-on-a-red-sofa.pipelines.mp4"]
    assert first["pipeline"] == "ltx_pipelines.ti2vid_one_stage"
    png = (
        run / "outputs/eval/inputs/in-distribution/01_a-tabby-cat-number-0-naps-on-a-red-sofa.first-frame.png"
    )
    clip = run / "dataset/clips/c0.mp4"
    assert first["conditioning"] == f"first frame: {clip} -> {png}"
    # the PNG is the clip's own frame 0 (not a later one), decoded with PyAV
    assert _rgb(png) == _rgb(clip, 0) != _rgb(clip, 4)
    log = (run / "logs/eval.log").read_text()
    assert f"conditioning on image {png} at frame 0" in log
    lines = "\n".join(evaluation_lines(run))  # run-summary.md's section
    assert (
        "01_a-tabby-cat-number-0-naps-on-a-red-sofa.pipelines.mp4` (with the LoRA, "
        "ltx-pipelines `ltx_pipelines.ti2vid_one_stage`, 64x36x9 (asked for 576x576x89)"
    ) in lines
    assert f"; fed first frame: {clip} -> {png})" in lines
    # a prompt of the user's has no row: the run's own validation image, passed as it is
    ood = made["out-of-distribution/01_a-cat-in-space.pipelines.mp4"]
    assert ood["conditioning"].startswith("first frame: ") and "->" not in ood["conditioning"]
    assert ood["conditioning"].endswith("first_frame_1.png")


def test_ic_lora_renders_through_ic_lora_with_the_reference_on_the_distilled_model(model_tree, capsys):
    box = model_tree()
    run = finished_recipe_run(box, capsys, "v2v_ic_lora", with_reference=True)
    config = run / "config.yaml"
    config.write_text(patch_yaml_text(config.read_text(), {"validation.video_dims": [608, 544, 89]}))
    code, out, err = _eval(capsys, run, "--production", "auto")
    assert code == 0, err
    assert (
        "not run: ltx_pipelines.ic_lora (IC-LoRA (video-to-video)) needs the distilled checkpoint" in out
        and "and the spatial upscaler x2" in out
    )
    assert not _pipelines(run)
    distilled, upscaler = _release_files(
        box.ckpt, "ltx-2.3-22b-distilled-1.1.safetensors", "ltx-2.3-spatial-upscaler-x2-1.1.safetensors"
    )
    code, out, err = _eval(capsys, run, "--production", "yes")
    assert code == 0, err
    assert f"with {distilled}" in out and f"with {upscaler}" in out
    assert "sizes in steps of 64" in out
    made = _pipelines(run)
    assert len(made) == 3 + 3  # and the 3 synthesised out-of-distribution prompts
    entry = made["in-distribution/01_a-tabby-cat-number-0-naps-on-a-red-sofa.pipelines.mp4"]
    assert entry["pipeline"] == "ltx_pipelines.ic_lora"
    assert entry["conditioning"] == f"reference video: {run / 'dataset/clips/r0.mp4'}"
    assert entry["asked_dims"] == [576, 512, 89]  # the two stages' steps of 64
    ood = made["out-of-distribution/01_the-subject-walking-through-a-forest-at.pipelines.mp4"]
    assert ood["conditioning"] == f"reference video: {box.ws.parent / 'media/reference_1.mp4'}"
    job = json.loads((run / "logs/eval-job.json").read_text())["production"]
    assert job["args"][:4] == ["--distilled-checkpoint-path", str(distilled), "--gemma-root", str(box.gemma)]
    assert "--num-inference-steps" not in job["args"]  # the distilled parser has none
    trainer = json.loads((run / "outputs/eval/prompts.json").read_text())["renders"][
        "in-distribution/01_a-tabby-cat-number-0-naps-on-a-red-sofa.mp4"
    ]
    assert trainer["asked_dims"] == [608, 544, 89] and trainer["pipeline"] == ""


def test_audio_to_video_gets_the_rows_audio_and_the_two_stage_files(model_tree, capsys):
    box = model_tree()
    run = finished_recipe_run(box, capsys, "a2v_lora", with_audio=True)
    lora, upscaler = _release_files(
        box.ckpt,
        "ltx-2.3-22b-distilled-lora-384-1.1.safetensors",
        "ltx-2.3-spatial-upscaler-x2-1.1.safetensors",
    )
    code, out, err = _eval(capsys, run, "--production", "yes")
    assert code == 0, err
    made = _pipelines(run)
    entry = made["in-distribution/02_a-tabby-cat-number-1-naps-on-a-red-sofa.pipelines.mp4"]
    assert entry["pipeline"] == "ltx_pipelines.a2vid_two_stage"
    assert entry["conditioning"] == f"audio: {run / 'dataset/clips/a1.wav'}"
    job = json.loads((run / "logs/eval-job.json").read_text())["production"]
    assert ["--distilled-lora", str(lora)] == job["args"][4:6]
    assert ["--spatial-upsampler-path", str(upscaler)] == job["args"][6:8]


def test_text_to_audio_writes_sound_through_t2a(model_tree, capsys):
    box = model_tree()
    run = finished_recipe_run(box, capsys, "t2a_lora")
    code, out, err = _eval(capsys, run, "--production", "yes")
    assert code == 0, err
    made = _pipelines(run)
    assert sorted(n for n in made if n.startswith("in-")) == [
        f"in-distribution/0{i + 1}_a-tabby-cat-number-{i}-naps-on-a-red-sofa.pipelines.wav" for i in range(3)
    ]
    assert all(n.endswith(".pipelines.wav") for n in made) and len(made) == 6
    assert {e["pipeline"] for e in made.values()} == {"ltx_pipelines.t2a_one_stage"}
    wav = run / "outputs/eval" / next(iter(made))
    assert decode(wav).error == "no video stream (an audio-only render)"
    job = json.loads((run / "logs/eval-job.json").read_text())["production"]
    assert "--video-cfg-guidance-scale" not in job["args"] and job["ext"] == "wav"


def test_a_mode_no_entry_point_takes_keeps_its_stated_reason(model_tree, capsys):
    box = model_tree()
    run = finished_recipe_run(box, capsys, "video_inpainting_lora")
    code, _, err = _eval(capsys, run, "--production", "yes")
    assert code == 2
    assert (
        "--production yes: the run validates with a mask to inpaint, which no "
        "ltx-pipelines entry point takes on its command line"
    ) in err


def _eval_config_samples(run) -> list:
    from ltx_wizard.core.io.yaml_patch import load_yaml

    return load_yaml((run / "eval-config.yaml").read_text())["validation"]["samples"]


def test_ic_lora_planned_without_validation_media_is_fed_each_rows_own_reference(model_tree, capsys):
    # item 7: config.yaml validates on the prompts only; eval still judges the IC-LoRA through
    # ic_lora with each row's reference, and says so
    box = model_tree()
    run = finished_recipe_run(box, capsys, "v2v_ic_lora", with_reference=True, validation_media=False)
    _release_files(
        box.ckpt, "ltx-2.3-22b-distilled-1.1.safetensors", "ltx-2.3-spatial-upscaler-x2-1.1.safetensors"
    )
    code, out, err = _eval(capsys, run, "--production", "yes", "--prompt", "a dog in the snow")
    assert code == 0, err
    assert "Production inference: ltx_pipelines.ic_lora (IC-LoRA (video-to-video))" in out
    assert (
        "Note: config.yaml validates without conditioning media (planned without --validation-media), "
        "but the run trains IC-LoRA (video-to-video): each prompt is fed its own dataset row's "
        "reference video, as the trainer trained on them; ltx-pipelines renders go through "
        "ltx_pipelines.ic_lora."
    ) in out
    refs = [run / f"dataset/clips/r{i}.mp4" for i in range(3)]
    assert f"     fed reference video: {refs[0]}" in out
    job = json.loads((run / "logs/eval-job.json").read_text())
    assert job["production"]["module"] == "ltx_pipelines.ic_lora"
    assert job["conditions"] == [{"type": "reference", "video": ""}]
    # the trainer's validation samples and the production renders alike: each row's own reference
    trainer = [s["conditions"] for s in _eval_config_samples(run)]
    assert trainer[:3] == [[{"type": "reference", "video": str(r)}] for r in refs]
    # the user's prompt (no held-out set) takes a training row's reference, never none
    assert trainer[3] == [{"type": "reference", "video": str(refs[0])}]
    made = _pipelines(run)
    entry = made["in-distribution/02_a-tabby-cat-number-1-naps-on-a-red-sofa.pipelines.mp4"]
    assert entry["pipeline"] == "ltx_pipelines.ic_lora"
    assert entry["conditioning"] == f"reference video: {refs[1]}"
    assert f"conditioning on reference video {refs[1]}" in (run / "logs/eval.log").read_text()
    renders = json.loads((run / "outputs/eval/prompts.json").read_text())
    trainer_render = renders["renders"]["in-distribution/02_a-tabby-cat-number-1-naps-on-a-red-sofa.mp4"]
    assert trainer_render["conditioning"] == f"reference video: {refs[1]}"
    assert any("ltx_pipelines.ic_lora" in n for n in renders["notes"])  # run-summary.md lists it


def test_image_to_video_planned_without_validation_media_is_fed_each_clips_first_frame(model_tree, capsys):
    box = model_tree()
    run = finished_recipe_run(box, capsys, "i2v_lora", validation_media=False)
    code, out, err = _eval(capsys, run, "--production", "yes")
    assert code == 0, err
    assert "ltx_pipelines.ti2vid_one_stage (image-to-video)" in out
    assert "each prompt is fed its own dataset row's first frame (frame 0 of its clip)" in out
    clip = run / "dataset/clips/c0.mp4"
    assert f"     fed first frame: {clip}" in out
    assert _eval_config_samples(run)[0]["conditions"] == [
        {"type": "first_frame", "image_or_video": str(clip)}
    ]
    first = _pipelines(run)["in-distribution/01_a-tabby-cat-number-0-naps-on-a-red-sofa.pipelines.mp4"]
    png = (
        run / "outputs/eval/inputs/in-distribution/01_a-tabby-cat-number-0-naps-on-a-red-sofa.first-frame.png"
    )
    assert first["conditioning"] == f"first frame: {clip} -> {png}"


def test_audio_to_video_feeds_each_prompt_its_own_clips_sound_not_the_runs_wav(model_tree, capsys):
    # item 8b: the rows hold only their clips (the sound is in them, as the trainer's preprocessing
    # reads it); the run's validation WAV is given too, and is no in-distribution prompt's sound
    box = model_tree()
    run = finished_recipe_run(box, capsys, "a2v_lora", clip_sound=True)
    _release_files(
        box.ckpt,
        "ltx-2.3-22b-distilled-lora-384-1.1.safetensors",
        "ltx-2.3-spatial-upscaler-x2-1.1.safetensors",
    )
    code, out, err = _eval(capsys, run, "--production", "yes")
    assert code == 0, err
    clips = [run / f"dataset/clips/c{i}.mp4" for i in range(3)]
    trainer = [s["conditions"] for s in _eval_config_samples(run)]
    assert trainer[:3] == [[{"type": "audio_to_video", "audio": str(c)}] for c in clips]
    made = _pipelines(run)
    entry = made["in-distribution/02_a-tabby-cat-number-1-naps-on-a-red-sofa.pipelines.mp4"]
    assert entry["conditioning"] == f"audio: {clips[1]} (the clip's own sound)"
    assert f"     fed audio: {clips[0]} (the clip's own sound)" in out
    assert "rain_1.wav" not in json.dumps([e["conditioning"] for n, e in made.items() if n.startswith("in-")])


def _render_command(run) -> str:
    """The command of run-summary.md's "Render with it" section (the renderer the summary calls)."""
    from ltx_wizard.core.evaluation.render_line import render_lines
    from ltx_wizard.core.io.yaml_patch import load_yaml
    from tests.eval_runs import final_checkpoint

    config = load_yaml((run / "config.yaml").read_text())
    lines = render_lines(run, config, final_checkpoint(run))
    return lines[lines.index("```bash") + 1]


_IC_FILES = ("ltx-2.3-22b-distilled-1.1.safetensors", "ltx-2.3-spatial-upscaler-x2-1.1.safetensors")
_A2V_FILES = ("ltx-2.3-22b-distilled-lora-384-1.1.safetensors", "ltx-2.3-spatial-upscaler-x2-1.1.safetensors")


@pytest.mark.parametrize(
    "recipe, module, release",
    [
        ("v2v_ic_lora", "ltx_pipelines.ic_lora", _IC_FILES),
        ("i2v_lora", "ltx_pipelines.ti2vid_one_stage", ()),
        ("a2v_lora", "ltx_pipelines.a2vid_two_stage", _A2V_FILES),
    ],
)
def test_the_render_line_is_the_modes_own_with_its_inputs_and_runs_as_printed(
    model_tree, capsys, tmp_path, recipe, module, release
):
    import shlex

    from ltx_wizard.demo.lookalike_pipelines import load_parser
    from tests.eval_runs import run_as_printed

    box = model_tree()
    run = finished_recipe_run(
        box, capsys, recipe, with_reference=True, validation_media=False, clip_sound=recipe == "a2v_lora"
    )
    _release_files(box.ckpt, *release)
    line = _render_command(run)
    argv = shlex.split(line)
    assert argv[:5] == ["uv", "run", "python", "-m", module]
    # the entry point's own parser (the look-alike checkout's copy of the real one) takes it
    args = load_parser(box.checkout, module).parse_args(argv[5:])
    assert args.prompt == CAPTIONS_0
    if recipe == "v2v_ic_lora":
        assert args.video_conditioning == [(str(run / "dataset/clips/r0.mp4"), 1.0)]
    elif recipe == "i2v_lora":
        png = (
            run
            / "outputs/eval/inputs/in-distribution/01_a-tabby-cat-number-0-naps-on-a-red-sofa.first-frame.png"
        )
        assert args.images == [(str(png), 0, 1.0, None)] and png.is_file()
    else:  # the clip's own sound
        assert args.audio_path == str(run / "dataset/clips/c0.mp4") and args.images == []
    done = run_as_printed(line, box.checkout, tmp_path / "bin")
    assert done.returncode == 0, done.stderr
    assert Path(args.output_path).is_file()
