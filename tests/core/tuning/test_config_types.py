"""The tuning rules read config.yaml through the typed view (core/io/trainer_config.py): a wrongly
typed key is refused naming the file and the key, not met as a TypeError or ValueError deeper down."""

from __future__ import annotations

from pathlib import Path

import pytest

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.io.yaml_patch import load_yaml
from ltx_wizard.core.tuning.duration import validation_passes
from ltx_wizard.core.tuning.trial_config import confirmation_config_text, settings_from_config
from ltx_wizard.demo.lookalike_checkout import STANDARD_TEXT

OLDER = STANDARD_TEXT.replace("  interval: 250\n", "  interval: 250\n  videos_per_prompt: 2\n", 1)


def test_an_older_trainers_videos_per_prompt_is_read_typed():
    one = validation_passes(load_yaml(STANDARD_TEXT), 1000)
    two = validation_passes(load_yaml(OLDER), 1000)
    assert two == (one[0], 2 * one[1])
    with pytest.raises(UsageError, match=r"^config.yaml: validation.videos_per_prompt is 'two'"):
        validation_passes(load_yaml(OLDER.replace("videos_per_prompt: 2", "videos_per_prompt: two")), 1000)


def test_the_confirmation_config_refuses_a_wrongly_typed_older_key():
    text = OLDER.replace("videos_per_prompt: 2", "videos_per_prompt: [2]")
    with pytest.raises(UsageError, match=r"^config.yaml: validation.videos_per_prompt is \[2\], expected"):
        confirmation_config_text(text, {}, Path("/sub"), Path("/out"))


def test_the_levers_refuse_a_wrongly_typed_key_with_its_name():
    with pytest.raises(UsageError, match=r"^config.yaml: lora.rank is 'big', expected a whole number"):
        settings_from_config(STANDARD_TEXT.replace("rank: 32", "rank: big", 1))
