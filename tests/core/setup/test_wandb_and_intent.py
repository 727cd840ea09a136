"""W&B login read by wandb itself in the trainer's environment (a stand-in uv runs a fake wandb),
and the intent question's mapping to the trainer team's mode selector."""

from __future__ import annotations

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.setup.intent import ANSWERS, follow_up, match_answer, statement
from ltx_wizard.core.inputs.wandb_login import WandbUnknown, check_login, decide
from tests.setup_standins import fake_wandb, write_uv


@pytest.fixture
def trainer_env(tmp_path, monkeypatch, model_tree):
    box = model_tree()
    uv = write_uv(tmp_path / "bin")
    monkeypatch.setenv("STANDIN_PYTHONPATH", str(fake_wandb(tmp_path / "site")))
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    return box, uv


def test_login_is_read_through_uv_in_the_trainer_environment(trainer_env, monkeypatch):
    box, uv = trainer_env
    trainer = box.checkout / "packages" / "ltx-trainer"
    monkeypatch.setenv("FAKE_WANDB_KEY", "k" * 40)
    assert check_login(str(uv), trainer).state == "in"
    monkeypatch.delenv("FAKE_WANDB_KEY")
    assert check_login(str(uv), trainer).state == "out"
    monkeypatch.setenv("FAKE_WANDB_ERROR", "network down")
    failed = check_login(str(uv), trainer)
    assert failed.state == "error" and "RuntimeError: network down" in failed.detail
    calls = (uv.parent / "uv-calls.log").read_text()
    assert '"run", "--no-sync", "python", "-c"' in calls  # never a sync as a side effect


def test_decisions_never_turn_wandb_off_on_a_guess():
    from ltx_wizard.core.inputs.wandb_login import WandbLogin

    assert decide(False, None, None, "t2v_lora.yaml").note == ""
    out = decide(True, None, WandbLogin(state="out"), "t2v_lora.yaml")
    assert out.disable and "turned off in config.yaml" in out.note
    assert not decide(True, None, WandbLogin(state="in"), "t2v_lora.yaml").disable
    with pytest.raises(WandbUnknown, match="--wandb on or --wandb off"):
        decide(True, None, WandbLogin(state="error", detail="x"), "t2v_lora.yaml")
    assert decide(True, "off", None, "b").disable and not decide(True, "on", None, "b").disable


def _enable_wandb(box) -> None:
    for name in ("t2v_lora.yaml", "t2v_lora_low_vram.yaml"):
        path = box.shipped(name)
        path.write_text(path.read_text().replace("wandb:\n  enabled: false", "wandb:\n  enabled: true"))


def test_plan_turns_wandb_off_when_logged_out_and_says_so(trainer_env):
    box, _uv = trainer_env
    _enable_wandb(box)
    assert main(box.args()) == 0
    config = (box.run / "config.yaml").read_text()
    assert "enabled: false" in config.split("wandb:", 1)[1].split("\n", 3)[1]
    assert "wandb finds no login in the trainer's environment" in (box.run / "plan.md").read_text()


def test_plan_asks_when_the_login_cannot_be_read(trainer_env, monkeypatch, capsys):
    box, _uv = trainer_env
    _enable_wandb(box)
    monkeypatch.setenv("FAKE_WANDB_ERROR", "boom")
    assert main(box.args()) == 2
    assert "answer with --wandb on or --wandb off" in capsys.readouterr().err
    assert main(box.args("--wandb", "on")) == 0
    assert "enabled: true" in (box.run / "config.yaml").read_text().split("wandb:", 1)[1]
    assert "kept on as you chose" in (box.run / "plan.md").read_text()


@pytest.mark.parametrize(
    "words, recipe",
    [
        ("train a LoRA on my cat", "i2v_lora"),
        ("a style LoRA for anime", "i2v_lora"),
        ("extend a video", "video_extend_lora"),
        ("add sound effects to a silent video", "v2a_lora"),
        ("fill in masked regions", "video_inpainting_lora"),
        ("control with a depth map reference", "v2v_ic_lora"),
        ("generate videos from text", "t2v_lora"),
        ("animate a photo", "i2v_lora"),
    ],
)
def test_plain_words_map_to_the_mode_selectors_config(words, recipe):
    choice = match_answer(words)
    assert choice is not None
    question = follow_up(choice)
    decided = question.choices[0] if question is not None else choice
    assert decided.recipe == recipe


def test_a_concept_lora_asks_how_it_is_used_and_defaults_to_i2v():
    concept = next(c for c in ANSWERS if c.key == "concept")
    usage = follow_up(concept)
    assert [c.recipe for c in usage.choices] == ["i2v_lora", "i2v_lora", "t2v_lora"]
    assert "text alone" in usage.question and "both" in usage.choices[0].label.lower()
    assert "usable for both image-to-video and text-to-video" in statement("i2v_lora")
    assert match_answer("knit me a sweater") is None
