"""Shared pytest setup: every test runs with a clean, GPU-free environment."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch, tmp_path):
    # Tests must never see the developer's GPUs, model folders or trainer checkout.
    for name in (
        "CUDA_VISIBLE_DEVICES",
        "LTX_MODELS_DIR",
        "LTX_TRAINER_ROOT",
        "LTX_TRAININGS_DIR",
        "HF_HOME",  # nor the developer's Hugging Face cache
        "HF_HUB_CACHE",
        "XDG_CACHE_HOME",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
