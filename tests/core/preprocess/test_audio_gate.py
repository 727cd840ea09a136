"""The audio gate's pieces: the clip it decodes, and a clip with sound never recorded as silent."""

from __future__ import annotations

import asyncio
import os
from types import SimpleNamespace

import pytest

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.preprocess.audio_gate import gate_clip
from ltx_wizard.core.preprocess.preprocess_state import read_state
from ltx_wizard.core.preprocess.preprocess_steps import run_step
from ltx_wizard.demo.sim.stand_in import AUDIO_DECODE_ENV, SimulatedTrainer
from tests.journeys.test_journey_audio_gate import planned  # noqa: F401  (the fixture)


def test_the_gate_decodes_the_first_clip_with_sound(planned):  # noqa: F811
    run, dataset = planned
    state = read_state(run)
    assert gate_clip(run, state) == dataset.parent / "videos" / "clip_00.mp4"


def test_sound_the_preprocessing_did_not_decode_is_never_recorded_silent(planned):  # noqa: F811
    """A check that said yes while the script still wrote no audio: the step stops naming the
    clip with sound; preprocess.json's silent clips stay the plan's."""
    run, _ = planned
    before = read_state(run).silent

    async def says_yes(clip):
        return SimpleNamespace(ok=True, detail="torchaudio 2.9.0", fix="")

    env = {**os.environ, AUDIO_DECODE_ENV: "0"}  # ... but the script's environment decodes none
    with pytest.raises(WizardError) as caught:
        asyncio.run(run_step(run, "one", env=env, stand_in=SimulatedTrainer("a6000"), audio_check=says_yes))
    assert "1 clip(s) that have sound: videos/clip_00.mp4" in caught.value.message
    assert "--video-only" in caught.value.message
    assert read_state(run).silent == before == ("videos/clip_03.pt",)
