"""The eval memory check: ltx-pipelines' stages one at a time (ltx_pipelines/utils/blocks.py), the
transformer with its activations at the render's size."""

from __future__ import annotations

import pytest

from ltx_wizard.core.base.units import GIB
from ltx_wizard.core.evaluation import memory
from ltx_wizard.core.tuning.headroom import FIT_FRACTION, OVERHEAD_GB, ModelSize

MODEL = ModelSize(19e9, 0.0, embeddings_params=1.5e9)
DEMO = (576, 576, 89)  # the look-alike checkout's validation.video_dims


def test_the_transformer_stage_holds_its_activations_not_the_text_connectors():
    need, parts = memory.need_gb(MODEL, 0, None, None, DEMO)
    tokens = 18 * 18 * 12
    acts = tokens * memory.ACTIVATION_BYTES_PER_TOKEN / GIB
    assert need == pytest.approx(19e9 * 2 / GIB + acts + OVERHEAD_GB)
    assert parts.startswith("transformer 35.4 + activations at 576x576x89 0.5")


def test_activations_grow_with_the_render_size():
    small, _ = memory.need_gb(MODEL, 0, None, None, DEMO)
    big, _ = memory.need_gb(MODEL, 0, None, None, (3840, 2176, 121))
    assert big - small == pytest.approx(
        (120 * 68 * 16 - 18 * 18 * 12) * memory.ACTIVATION_BYTES_PER_TOKEN / GIB
    )


def test_a_larger_text_encoder_is_its_own_stage():
    need, parts = memory.need_gb(ModelSize(1e9, 0.0), 30 * GIB, "fp8-cast", None, DEMO)
    assert need == pytest.approx(30 + OVERHEAD_GB) and parts.startswith("text encoder stage 30.0")


def test_bf16_on_the_demos_a6000_fits_with_its_activations():
    options = memory.options(MODEL, 0, 47.99, 256.0, DEMO)
    bf16 = options[0]
    assert bf16.fits and bf16.need_gb <= 47.99 * FIT_FRACTION
    assert memory.first_fit(options) is bf16
