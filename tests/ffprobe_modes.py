"""Run a dataset test twice: with the machine's ffprobe on PATH, and with it hidden.

The fixture is registered in tests/conftest.py; a test asks
for `ffprobe_mode`: "on PATH" (skipped where ffprobe is not installed) or "hidden" (every PATH
folder holding an ffprobe left out, so the wizard's fallback finds none).
"""

from __future__ import annotations

import os
import shutil

import pytest


def hide_ffprobe(monkeypatch) -> None:
    kept = [
        d for d in os.environ.get("PATH", "").split(os.pathsep) if d and not shutil.which("ffprobe", path=d)
    ]
    monkeypatch.setenv("PATH", os.pathsep.join(kept))
    assert shutil.which("ffprobe") is None


@pytest.fixture(params=["on PATH", "hidden"])
def ffprobe_mode(request, monkeypatch) -> str:
    if request.param == "hidden":
        hide_ffprobe(monkeypatch)
    elif shutil.which("ffprobe") is None:
        pytest.skip("ffprobe is not installed here")
    return request.param
