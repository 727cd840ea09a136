"""The one data rule: a strategy block -> the folders the trainer reads, as its get_data_sources.

Each expected mapping is what the trainer's own `get_data_sources()` returns for that block
(ltx_trainer/training_strategies/{flexible,text_to_video,video_to_video}.py), in its order.
"""

from __future__ import annotations

import pytest

from ltx_wizard.core.dataset.sources import (
    SHIPPED_T2V_STRATEGY,
    audio_folder,
    expected_file,
    primary_folder,
    required_folders,
    video_only,
    video_only_change,
)
from ltx_wizard.core.base.errors import UsageError

CASES = [
    (
        "shipped t2v (flexible, video + audio)",
        SHIPPED_T2V_STRATEGY,
        {"conditions": "conditions", "latents": "video_latents", "audio_latents": "audio_latents"},
    ),
    (
        "flexible, audio: null",
        {"name": "flexible", "audio": None, "video": {"is_generated": True, "latents_dir": "latents"}},
        {"conditions": "conditions", "latents": "video_latents"},
    ),
    (
        "t2a: audio only",
        {"name": "flexible", "audio": {"is_generated": True, "latents_dir": "audio_latents"}},
        {"conditions": "conditions", "audio_latents": "audio_latents"},
    ),
    (
        "v2v IC-LoRA: reference condition",
        {
            "name": "flexible",
            "video": {
                "is_generated": True,
                "latents_dir": "latents",
                "conditions": [{"type": "reference", "latents_dir": "reference_latents"}],
            },
        },
        {"conditions": "conditions", "latents": "video_latents", "reference_latents": "reference_latents"},
    ),
    (
        "inpainting: mask condition on audio",
        {
            "name": "flexible",
            "audio": {
                "is_generated": True,
                "latents_dir": "audio_latents",
                "conditions": [
                    {"type": "mask", "mask_dir": "audio_masks"},
                    {"type": "prefix", "temporal_boundary": 2},
                ],
            },
        },
        {"conditions": "conditions", "audio_latents": "audio_latents", "audio_masks": "audio_masks"},
    ),
    ("no training_strategy: text_to_video", None, {"latents": "latents", "conditions": "conditions"}),
    (
        "no name: text_to_video",
        {"with_audio": True},
        {"latents": "latents", "conditions": "conditions", "audio_latents": "audio_latents"},
    ),
    (
        "text_to_video, own audio folder",
        {"name": "text_to_video", "with_audio": True, "audio_latents_dir": "sound"},
        {"latents": "latents", "conditions": "conditions", "sound": "audio_latents"},
    ),
    (
        "video_to_video",
        {"name": "video_to_video"},
        {"latents": "latents", "conditions": "conditions", "reference_latents": "ref_latents"},
    ),
]


@pytest.mark.parametrize(("label", "strategy", "expected"), CASES, ids=[c[0] for c in CASES])
def test_required_folders_match_get_data_sources(label, strategy, expected):
    got = required_folders(strategy)
    assert got == expected and list(got) == list(expected)  # order decides the primary folder


def test_primary_folder_is_latents_when_read_else_the_first():
    assert primary_folder(required_folders(SHIPPED_T2V_STRATEGY)) == "latents"
    t2a = {"name": "flexible", "audio": {"is_generated": True, "latents_dir": "audio_latents"}}
    assert primary_folder(required_folders(t2a)) == "conditions"


def test_legacy_names_only_for_conditions():
    assert expected_file("conditions", "a/latent_007.pt") == "condition_007.pt"
    assert expected_file("audio_latents", "a/latent_007.pt") == "a/latent_007.pt"
    assert expected_file("conditions", "a/clip_007.pt") == "a/clip_007.pt"


def test_video_only_is_one_key_and_only_where_video_is_left_to_train():
    assert video_only_change(SHIPPED_T2V_STRATEGY) == ("training_strategy.audio", None)
    assert audio_folder(video_only(SHIPPED_T2V_STRATEGY)) is None
    assert video_only_change({"name": "text_to_video", "with_audio": True}) == (
        "training_strategy.with_audio",
        False,
    )
    t2a = {"name": "flexible", "audio": {"is_generated": True, "latents_dir": "audio_latents"}}
    assert video_only_change(t2a) is None  # nothing would be generated
    assert video_only_change({"name": "video_to_video"}) is None  # no audio to drop
    a2v = {
        "name": "flexible",
        "video": {"is_generated": True, "latents_dir": "latents"},
        "audio": {"is_generated": False, "latents_dir": "audio_latents"},
    }
    assert video_only_change(a2v) is None  # audio is the recipe's input: it cannot be dropped


@pytest.mark.parametrize(
    "bad",
    [
        {"name": "image_to_video"},
        {"name": "flexible", "video": "latents"},
        {"name": "flexible", "video": {"is_generated": True}},
        {
            "name": "flexible",
            "video": {"is_generated": True, "latents_dir": "latents", "conditions": [{"type": "mask"}]},
        },
    ],
)
def test_a_broken_strategy_is_a_clear_usage_error(bad):
    with pytest.raises(UsageError, match="fix the config"):
        required_folders(bad)
