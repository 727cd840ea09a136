"""The LoRA health verdict (core/compare/health_verdict.py), one test per problem, on module facts
named as the trainer names them (tests/lora_files.py: ltx-core's blocks, PEFT's target matching)."""

from __future__ import annotations

import math

import pytest

from ltx_wizard.core.compare.health_record import CheckpointFacts, ModuleFacts, OtherTensor
from ltx_wizard.core.compare.health_verdict import Trained, place, targeted, verdict
from tests.lora_files import DEFAULT_TARGETS, FF_TARGETS, TINY, is_audio, modules

VIDEO_ONLY = Trained(DEFAULT_TARGETS, audio=False)


def _module(name: str, *, zero: bool = False, nan: int = 0, inf: int = 0, norm: float = 0.5) -> ModuleFacts:
    bad = nan or inf
    return ModuleFacts(
        name=f"diffusion_model.{name}",
        rank=4,
        nan=nan,
        inf=inf,
        b_zero=zero,
        a_norm=None if bad else 1.0,
        b_norm=None if bad else (0.0 if zero else 0.1),
        delta_norm=None if bad else (0.0 if zero else norm),
    )


def _facts(targets=DEFAULT_TARGETS, *, audio_learned=False, change=None, others=()) -> CheckpointFacts:
    """A checkpoint of TINY's blocks: video modules learned, audio ones at zero unless
    `audio_learned`; `change(name)` returns keyword changes for one module."""
    found = []
    for name in modules(TINY, targets):
        kwargs = {"zero": is_audio(name) and not audio_learned}
        kwargs |= (change or (lambda _n: {}))(name)
        found.append(_module(name, **kwargs))
    return CheckpointFacts(
        path="/run/outputs/checkpoints/lora_weights_step_01000.safetensors",
        file_bytes=1000,
        dtypes=("BF16",),
        seconds=0.1,
        modules=tuple(found),
        others=tuple(others),
    )


def test_a_healthy_video_only_lora_is_ok_and_its_audio_modules_at_zero_are_expected():
    result = verdict(_facts(), VIDEO_ONLY)
    assert result.ok and result.problems == ()
    groups = {g.name: g for g in result.groups}
    assert set(groups) == {"video attention", "audio attention", "audio-video cross attention"}
    assert groups["audio attention"].norm == 0.0 and groups["video attention"].modules == 4 * 8
    assert groups["video attention"].norm == pytest.approx(math.sqrt(32 * 0.25))
    assert [r.name for r in result.block_ranges] == ["block 0", "block 1", "block 2", "block 3"]


def test_a_nan_is_never_ok_and_its_sentence_names_the_group_and_the_count():
    result = verdict(
        _facts(change=lambda n: {"nan": 3} if n == "transformer_blocks.2.attn2.to_v" else {}), VIDEO_ONLY
    )
    assert not result.ok
    assert result.problems == ("video attention: 3 NaN and 0 Inf values in 1 of 32 modules",)
    assert {g.name: g.norm for g in result.groups}["video attention"] is None


def test_an_inf_in_an_audio_module_is_a_problem_even_where_audio_is_expected_at_zero():
    hit = "transformer_blocks.0.audio_attn1.to_q"
    result = verdict(_facts(change=lambda n: {"inf": 2} if n == hit else {}), VIDEO_ONLY)
    assert not result.ok
    assert result.problems[0] == "audio attention: 0 NaN and 2 Inf values in 1 of 32 modules"


def test_a_nan_outside_the_lora_pairs_is_a_problem():
    other = OtherTensor(
        name="diffusion_model.transformer_blocks.0.attn1.to_k.lora_A.weight", nan=1, inf=0, norm=None
    )
    result = verdict(_facts(others=(other,)), VIDEO_ONLY)
    assert not result.ok
    assert result.problems == (
        "1 NaN and 0 Inf values in 1 tensors outside the LoRA pairs (first: " + other.name + ")",
    )


def test_all_zero_b_matrices_say_nothing_was_learned():
    result = verdict(_facts(change=lambda n: {"zero": True}), VIDEO_ONLY)
    assert not result.ok
    assert result.problems == ("nothing learned: all 32 B matrices of the trained modules are zero",)


def test_some_zero_b_matrices_in_a_trained_group_are_named_with_their_count():
    zero = {"transformer_blocks.1.attn1.to_k", "transformer_blocks.3.attn2.to_out.0"}
    result = verdict(_facts(change=lambda n: {"zero": True} if n in zero else {}), VIDEO_ONLY)
    assert result.problems == ("video attention: 2 of 32 B matrices are all zero (nothing learned there)",)


def test_audio_modules_trained_on_a_video_only_run_are_flagged_per_group():
    result = verdict(_facts(audio_learned=True), VIDEO_ONLY)
    assert not result.ok
    assert result.problems == (
        "audio attention: 32 of 32 modules trained on a video-only run (the config gives the model no audio)",
        "audio-video cross attention: 32 of 32 modules trained on a video-only run "
        "(the config gives the model no audio)",
    )


def test_the_same_lora_is_healthy_on_an_audio_run():
    assert verdict(_facts(audio_learned=True), Trained(DEFAULT_TARGETS, audio=True)).ok


def test_modules_the_config_does_not_target_are_named():
    result = verdict(_facts(DEFAULT_TARGETS + FF_TARGETS), VIDEO_ONLY)
    assert not result.ok
    assert result.problems == (
        "video feed-forward: 8 modules the config does not target (lora.target_modules: to_k, to_q, to_v, "
        "to_out.0; first: transformer_blocks.0.ff.net.0.proj)",
    )
    assert verdict(_facts(DEFAULT_TARGETS + FF_TARGETS), Trained(DEFAULT_TARGETS + FF_TARGETS)).ok


def test_a_file_without_lora_pairs_is_not_ok():
    empty = _facts(targets=())
    result = verdict(empty, VIDEO_ONLY)
    assert result.problems == ("no LoRA modules in the file (no lora_A/lora_B pairs): not a LoRA checkpoint",)


@pytest.mark.parametrize(
    ("name", "targets", "expected"),
    [
        ("diffusion_model.transformer_blocks.0.audio_attn1.to_k", ("to_k",), True),  # "matches both branches"
        ("diffusion_model.transformer_blocks.0.audio_attn1.to_k", ("attn1.to_k",), False),  # a dot before it
        ("transformer_blocks.0.attn1.to_k", ("attn1.to_k",), True),
        ("transformer_blocks.0.attn1.to_out.0", ("to_out",), False),  # suffix after a dot, whole
        ("transformer_blocks.0.attn1.to_out.0", ("transformer_blocks.0.attn1.to_out.0",), True),
        ("transformer_blocks.0.ff.net.2", ("net.2",), True),
    ],
)
def test_target_matching_is_peft_suffix_rule(name, targets, expected):
    assert targeted(name, targets) is expected


def test_places_follow_the_blocks_submodules():
    assert place("diffusion_model.transformer_blocks.7.video_to_audio_attn.to_q").group == (
        "audio-video cross attention"
    )
    assert place("transformer_blocks.7.audio_ff.net.2").group == "audio feed-forward"
    assert place("diffusion_model.proj_out").group == "outside the blocks"


def test_what_the_config_trains_is_read_from_its_strategy_and_lora_keys():
    video = {"training_strategy": {"name": "text_to_video", "with_audio": False}, "lora": {"rank": 8}}
    assert Trained.from_config(video) == Trained(DEFAULT_TARGETS, audio=False)
    av = {
        "training_strategy": {"name": "text_to_video", "with_audio": True},
        "lora": {"target_modules": ["to_q"]},
    }
    assert Trained.from_config(av) == Trained(("to_q",), audio=True)
    flexible = {"training_strategy": {"name": "flexible", "video": {}, "audio": None}}
    assert Trained.from_config(flexible).audio is False


def test_audio_only_targets_on_a_video_only_run_have_nothing_to_learn():
    audio_targets = ("audio_attn1.to_k", "audio_attn1.to_q")
    result = verdict(_facts(audio_targets), Trained(audio_targets, audio=False))
    assert result.problems == (
        "nothing to learn: all 8 targeted modules are audio ones and the config gives no audio",
    )
    assert verdict(_facts(audio_targets, audio_learned=True), Trained(audio_targets, audio=True)).ok
