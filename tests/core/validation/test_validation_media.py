"""Validation media: what a recipe's samples read, each file checked as the trainer opens it, the
dataset file's media offered, and the validation plan written into config.yaml (issue 19, item 1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ltx_wizard.core.dataset.dataset_media import dataset_offers, offers_for
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.validation.validation_media import check_medium, expected_reader, media_slots
from ltx_wizard.core.validation.validation_choice import plan_validation
from ltx_wizard.core.io.yaml_patch import load_yaml
from ltx_wizard.demo.lookalike_recipes import write_medium

CONFIG = """\
validation:
  # Validation samples: each one a generation request
  samples:
    - prompt: >-
        A long shipped prompt that folds
        over two lines.
      conditions:
        - type: mask
          video: "/path/to/source_1.mp4"   # your clip
          # the mask marks what is generated
          mask: "/path/to/mask_1.png"
    - prompt: "second"
      conditions:
        - type: mask
          video: "/path/to/source_2.mp4"
          mask: "/path/to/mask_2.png"
  negative_prompt: "worst"
  interval: 250   # steps between validations
"""


def test_slots_come_from_the_shipped_samples_in_order():
    config = {
        "validation": {
            "samples": [
                {"prompt": "a", "conditions": [{"type": "first_frame", "image_or_video": "/x/a.png"}]},
                {
                    "prompt": "b",
                    "conditions": [
                        {"type": "reference", "video": "/x/r.mp4"},
                        {"type": "reference", "audio": "/x/r.wav"},
                        {"type": "mask", "audio": "/x/s.wav", "mask": "/x/m.pt"},
                    ],
                },
            ]
        }
    }
    slots = media_slots(config)
    assert [(s.where, s.kind) for s in slots] == [
        ("validation.samples[0].conditions[0].image_or_video", "image"),
        ("validation.samples[1].conditions[0].video", "reference video"),
        ("validation.samples[1].conditions[1].audio", "reference audio"),
        ("validation.samples[1].conditions[2].audio", "audio"),
        ("validation.samples[1].conditions[2].mask", "audio mask"),
    ]
    # the reader follows the trainer: a first frame by suffix, an audio mask .pt via torch.load
    assert [expected_reader(s, s.value) for s in slots] == ["image", "video", "audio", "audio", "torch"]
    assert expected_reader(slots[0], "/x/clip.mp4") == "video"


def test_each_file_is_checked_as_the_trainer_reads_it(tmp_path: Path):
    png = write_medium(tmp_path / "frame.png")
    assert check_medium(str(png), "image") is None
    assert "placeholder" in check_medium("/path/to/frame.png", "image")
    assert "does not exist" in check_medium(str(tmp_path / "nope.png"), "image")
    assert "not a regular file" in check_medium(str(tmp_path), "image")
    (tmp_path / "text.png").write_text("hello")
    assert "no known container" in check_medium(str(tmp_path / "text.png"), "image")
    wrong = tmp_path / "frame.mp4"
    wrong.write_bytes(png.read_bytes())
    assert check_medium(str(wrong), "video") == (
        f"{str(wrong)!r} is PNG, but the trainer reads this slot with PyAV"
    )
    assert check_medium(str(write_medium(tmp_path / "s.wav")), "audio") is None
    assert check_medium(str(write_medium(tmp_path / "m.pt")), "torch") is None


def test_media_fill_the_slots_in_order_and_keep_the_shipped_comments(tmp_path: Path):
    files = [write_medium(tmp_path / n) for n in ("s1.mp4", "m1.png", "s2.mp4", "m2.png")]
    out = plan_validation(CONFIG, files, ["my prompt", "another"], recipe="inpaint")
    assert out.mode == "media"
    samples = load_yaml(out.text)["validation"]["samples"]
    assert samples == [
        {
            "prompt": "my prompt",
            "conditions": [{"type": "mask", "video": str(files[0]), "mask": str(files[1])}],
        },
        {
            "prompt": "another",
            "conditions": [{"type": "mask", "video": str(files[2]), "mask": str(files[3])}],
        },
    ]
    for comment in (
        "# your clip",
        "# the mask marks what is generated",
        "# Validation samples",
        "# steps between validations",
    ):
        assert comment in out.text
    assert "/path/to/" not in out.text
    assert out.notes[0].startswith("Validation: 2 validation samples with your media (4 file(s)")


def test_fewer_media_keep_the_samples_they_fill(tmp_path: Path):
    files = [write_medium(tmp_path / n) for n in ("s1.mp4", "m1.png")]
    out = plan_validation(CONFIG, files)
    assert len(load_yaml(out.text)["validation"]["samples"]) == 1
    assert "A long shipped prompt" in out.text and "second" not in out.text
    assert any("left out" in note for note in out.notes)


@pytest.mark.parametrize(
    "media, prompts, mode, words",
    [
        (["s1.mp4"], [], None, "sample 1 also needs a mask"),
        (["s1.mp4", "m1.png", "s2.mp4", "m2.png", "s1.mp4"], [], None, "given 5 times"),
        (["s1.mp4", "m1.png"], ["a", "b"], None, "one prompt per sample"),
        (["m1.png"], [], None, "is PNG, but the trainer reads this slot with PyAV"),
        (["s1.mp4"], [], "off", "--no-validation turns validation off"),
        (["s1.mp4"], [], "prompts-only", "--no-validation-media validates without media"),
    ],
)
def test_wrong_media_or_prompts_are_refused_in_one_line(tmp_path, media, prompts, mode, words):
    for name in ("s1.mp4", "m1.png", "s2.mp4", "m2.png"):
        write_medium(tmp_path / name)
    with pytest.raises(UsageError) as err:
        plan_validation(CONFIG, [tmp_path / m for m in media], prompts, mode)
    assert words in err.value.message and "\n" not in err.value.message


def test_without_media_validation_runs_on_the_prompts_and_says_so():
    out = plan_validation(CONFIG, recipe="inpaint")
    assert out.mode == "prompts-only"
    assert [sorted(s) for s in load_yaml(out.text)["validation"]["samples"]] == [["prompt"]] * 2
    assert "# steps between validations" in out.text and "/path/to/" not in out.text
    assert out.notes[0].startswith("Validation without conditioning media: 2 validation samples")
    (warning,) = out.warnings
    assert "sample 1: video + mask; sample 2: video + mask" in warning


def test_validation_off_reads_nothing_and_says_so():
    out = plan_validation(CONFIG, mode="off")
    validation = load_yaml(out.text)["validation"]
    assert validation["samples"] == [] and validation["interval"] is None
    assert out.notes[0].startswith("Validation off (--no-validation)")


def test_prompts_of_a_text_only_recipe_replace_and_extend_the_shipped_ones():
    text = 'validation:\n  samples:\n    - prompt: "shipped one"\n    - prompt: "shipped two"\n'
    out = plan_validation(text, prompts=["a", "b", "c"])
    assert load_yaml(out.text)["validation"]["samples"] == [{"prompt": "a"}, {"prompt": "b"}, {"prompt": "c"}]
    one = plan_validation(text, prompts=["only"])
    assert load_yaml(one.text)["validation"]["samples"] == [{"prompt": "only"}]


def test_shipped_media_the_trainer_can_read_are_kept(tmp_path: Path):
    files = [write_medium(tmp_path / n) for n in ("s1.mp4", "m1.png", "s2.mp4", "m2.png")]
    text = CONFIG
    for name, file in zip(("source_1.mp4", "mask_1.png", "source_2.mp4", "mask_2.png"), files):
        text = text.replace(f"/path/to/{name}", str(file))
    out = plan_validation(text)
    assert out.mode == "media" and out.text == text and not out.warnings


def test_the_dataset_file_beside_the_data_root_offers_its_media(tmp_path: Path):
    clips = tmp_path / "clips"
    for name in ("a.mp4", "b.mp4", "a.wav"):
        write_medium(clips / "media" / name)
    (clips / "dataset.json").write_text(
        json.dumps(
            [
                {"caption": "x", "media_path": "media/a.mp4", "audio": "media/a.wav"},
                {"caption": "y", "video": "media/b.mp4"},
                {"caption": "z", "video": "media/missing.mp4"},
            ]
        )
    )
    (clips / "extra.csv").write_text("caption,reference_video\nq,media/b.mp4\n")
    offers = dataset_offers(clips / ".precomputed")
    assert [(o.role, o.path.name) for o in offers] == [
        ("video", "a.mp4"),
        ("audio", "a.wav"),
        ("video", "b.mp4"),
        ("reference_video", "b.mp4"),
    ]
    assert [o.path.name for o in offers_for("image", offers)] == ["a.mp4", "b.mp4"]
    assert [o.role for o in offers_for("reference video", offers)][0] == "reference_video"
    assert offers_for("mask", offers) == []
