"""`plan --validation-media / --validation-prompt / --no-validation-media / --no-validation`."""

from __future__ import annotations

import json
from contextlib import nullcontext
from pathlib import Path

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.launch import accelerate_config
from ltx_wizard.core.dataset.sources import required_folders
from ltx_wizard.core.inputs.recipes import find_recipe
from ltx_wizard.core.io.yaml_patch import load_yaml
from ltx_wizard.demo.lookalike_checkout import make_checkout
from ltx_wizard.demo.lookalike_models import make_checkpoint, make_data_root, make_gemma_dir
from ltx_wizard.demo.lookalike_recipes import write_medium


@pytest.fixture(autouse=True)
def _no_accelerate(monkeypatch):
    monkeypatch.setattr(accelerate_config, "accelerate_available", lambda: False)


def _args(tmp_path: Path, recipe: str, *extra: str) -> list[str]:
    checkout = tmp_path / "LTX-2"
    if not checkout.exists():
        make_checkout(checkout)
        make_checkpoint(tmp_path / "models" / "ltx.safetensors")
        make_gemma_dir(tmp_path / "models" / "gemma")
    strategy = find_recipe(checkout / "packages/ltx-trainer/configs", recipe).strategy
    data = make_data_root(tmp_path / recipe / ".precomputed", 3, folders=list(required_folders(strategy)))
    return [
        "plan",
        "--trainer-root",
        str(checkout),
        "--checkpoint",
        str(tmp_path / "models" / "ltx.safetensors"),
        "--text-encoder",
        str(tmp_path / "models" / "gemma"),
        "--data-root",
        str(data),
        "--workspace",
        str(tmp_path / "ws"),
        "--recipe",
        recipe,
        "--simulate",
        "h100",
        "--json",
        *extra,
    ]


def _plan(tmp_path, capsys, recipe, *extra) -> tuple[dict, dict, str]:
    assert main(_args(tmp_path, recipe, *extra)) == 0, capsys.readouterr().err
    out = json.loads(capsys.readouterr().out)
    return out, load_yaml(Path(out["config"]).read_text("utf-8")), Path(out["plan"]).read_text("utf-8")


def test_media_and_prompts_given_are_written_and_stated(tmp_path, capsys):
    one, two = write_medium(tmp_path / "me" / "one.png"), write_medium(tmp_path / "me" / "two.png")
    out, config, plan = _plan(
        tmp_path,
        capsys,
        "i2v_lora",
        "--validation-media",
        str(one),
        "--validation-media",
        str(two),
        "--validation-prompt",
        "my cat",
        "--validation-prompt",
        "my dog",
    )
    assert config["validation"]["samples"] == [
        {"prompt": "my cat", "conditions": [{"type": "first_frame", "image_or_video": str(one)}]},
        {"prompt": "my dog", "conditions": [{"type": "first_frame", "image_or_video": str(two)}]},
    ]
    assert "Validation: 2 validation samples with your media (2 file(s)" in plan
    assert not [w for w in out["warnings"] if "validation" in w]


def test_prompts_replace_the_shipped_ones_of_a_text_only_recipe(tmp_path, capsys):
    _, config, plan = _plan(tmp_path, capsys, "t2a_lora", "--validation-prompt", "rain on tin")
    assert config["validation"]["samples"] == [{"prompt": "rain on tin"}]
    assert "1 validation sample from your prompts" in plan


def test_no_validation_turns_it_off_and_says_so(tmp_path, capsys):
    _, config, plan = _plan(tmp_path, capsys, "a2v_lora", "--no-validation")
    assert config["validation"]["samples"] == [] and config["validation"]["interval"] is None
    assert "Validation off (--no-validation)" in plan


def test_no_validation_media_keeps_the_prompts_without_a_warning(tmp_path, capsys):
    out, config, plan = _plan(tmp_path, capsys, "video_extend_lora", "--no-validation-media")
    assert all("conditions" not in s for s in config["validation"]["samples"])
    assert "Validation without conditioning media" in plan
    assert not [w for w in out["warnings"] if "validation media" in w]  # asked for: no warning


def test_without_media_the_warning_names_the_dataset_files_media(tmp_path, capsys):
    args = _args(tmp_path, "i2v_lora")
    clips = tmp_path / "i2v_lora"  # the data root is .precomputed in it
    clip = write_medium(clips / "clips" / "first.mp4")
    (clips / "dataset.jsonl").write_text(json.dumps({"caption": "a", "video": "clips/first.mp4"}))
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    (warning,) = [w for w in out["warnings"] if "no validation media given" in w]
    assert f"the dataset file beside the data root names {clip}" in warning


@pytest.mark.parametrize(
    "extra, words",
    [
        (
            ["--validation-media", "{tmp}/nope.png"],
            "--validation-media {tmp}/nope.png: "
            "'{tmp}/nope.png' does not exist (for validation.samples[0].conditions[0]"
            ".image_or_video: image)",
        ),
        (["--validation-media", "{tmp}/clip.txt"], "no known container in its first bytes"),
        (["--validation-media", "{tmp}/clip.txt", "--no-validation"], "--no-validation turns"),
        (["--no-validation", "--no-validation-media"], "not allowed with argument"),
    ],
)
def test_bad_validation_input_is_one_line_exit_2_and_writes_nothing(tmp_path, capsys, extra, words):
    (tmp_path / "clip.txt").write_text("just text")
    extra = [e.format(tmp=tmp_path) for e in extra]
    with pytest.raises(SystemExit) if "not allowed" in words else nullcontext():
        assert main(_args(tmp_path, "i2v_lora", *extra)) == 2
    err = capsys.readouterr().err
    assert words.format(tmp=tmp_path) in err
    assert not (tmp_path / "ws").exists() or not list((tmp_path / "ws").glob("*/config.yaml"))


def test_a_truncated_second_image_is_refused_before_anything_heavy(tmp_path, capsys):
    # the autotune confirmation validates sample 1 only; a second image cut short passed the
    # first-bytes check and killed the handed-over run when the trainer opened it
    one, two = write_medium(tmp_path / "me" / "one.png"), write_medium(tmp_path / "me" / "two.png")
    two.write_bytes(two.read_bytes()[: len(two.read_bytes()) // 2])
    assert two.read_bytes().startswith(b"\x89PNG")  # still looks like a PNG
    code = main(_args(tmp_path, "i2v_lora", "--validation-media", str(one), "--validation-media", str(two)))
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert str(two) in err and "does not decode" in err and "PIL would fail" in err
    assert not (tmp_path / "ws").exists()


def test_no_validation_turns_the_decoders_off_too(tmp_path, capsys):
    # validation_runner.py ValidationRunner.__init__ loads the VAE decoder, the audio decoder
    # and the vocoder whenever generate_video / generate_audio are on, samples or not
    _, config, plan = _plan(tmp_path, capsys, "t2v_lora", "--no-validation")
    validation = config["validation"]
    assert validation["samples"] == [] and validation["interval"] is None
    assert validation["generate_video"] is False and validation["generate_audio"] is False
    assert "generate_video: false" in plan and "decoder" in plan
