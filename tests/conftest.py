"""Shared pytest setup: every test runs with a clean, GPU-free environment."""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path

import pytest

from tests.model_tree import ModelTree

# pytest caches each test module's assertion rewrite in __pycache__ only where bytecode may be
# written. Where PYTHONDONTWRITEBYTECODE is set (this box, and CI boxes like it) every pytest
# process (the serial pass, then each worker) rewrote all ~350 test modules again: ~6 s of CPU
# each. The test processes write it; the wizard processes they start keep the variable.
sys.dont_write_bytecode = False

# Python's default collection thresholds (700, 10, 10) suit small heaps. A test process's heap
# grows to ~270,000 tracked objects (Textual, pydantic, every screen's module), and each full
# collection walks all of them: garbage collection was 26 % of the workers' CPU time (148 s of
# 570 s). Larger young generations mean ten times fewer collections for the same work; the
# wizard itself keeps the defaults (tui/heap.py freezes its long-lived objects instead).
gc.set_threshold(10_000, 20, 20)


@pytest.fixture(scope="session")
def _demo_media_cache(tmp_path_factory) -> Path:
    """One demo media cache (demo/media_cache.py) for the whole run, every xdist worker included
    (the parent of a worker's base folder is the run's): the demo's clips and renders are encoded
    once, not in every test that builds a demo. Its entries appear whole (temp file, rename)."""
    base = tmp_path_factory.getbasetemp()
    root = base.parent if base.name.startswith("popen-gw") else base
    return root / "demo-media"


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch, tmp_path, _demo_media_cache):
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
    monkeypatch.setenv("LTX_WIZARD_DEMO_CACHE", str(_demo_media_cache))
    (tmp_path / "home").mkdir()
    # Nor may a test's wizard install anything for real: `setup --yes` on a box without uv accepts
    # "Install uv", which pip-installs uv into the wizard's own environment (the test venv). With no
    # index and no config file, that pip fails at once; the offer's failure is what such a test sees.
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)


@pytest.fixture(autouse=True, scope="session")
def _wizard_env_untouched():
    """No test leaves a uv in the wizard's own environment (tests that find uv there would then
    pass or fail by the order they ran in)."""
    from ltx_wizard.core.inputs.uv_tool import own_scripts_dir

    uv = own_scripts_dir() / "uv"
    before = uv.exists()
    yield
    assert before or not uv.exists(), f"a test installed {uv} into the wizard's environment"


@pytest.fixture
def model_tree(tmp_path):
    """Builds the shared look-alike box (tests/model_tree.py) under this test's tmp_path."""
    return lambda **options: ModelTree(tmp_path, **options)


# Every test may ask for `ffprobe_mode` (ffprobe on PATH, or hidden): tests/ffprobe_modes.py
from tests.ffprobe_modes import ffprobe_mode  # noqa: E402,F401 - a fixture, found by its name


# The long tests first: pytest-xdist hands the first quarter of the list out round-robin, so long
# walks that come last in file order (tests/tui, the signal walks) leave one worker finishing
# alone while the others idle. Ordering changes only when a test runs, never what it checks.
_LONG_FIRST = (
    "tests/journeys/",
    "tests/reliability/test_signals_tui",
    "tests/e2e/",
    "tests/reliability/test_signals_",
    "tests/tui/",
    "tests/cli/",
)


def _rank(item: pytest.Item) -> int:
    path = item.nodeid
    return next((i for i, prefix in enumerate(_LONG_FIRST) if path.startswith(prefix)), len(_LONG_FIRST))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=_rank)  # stable: file order within each rank
