"""Fixtures for the TUI tests (helpers live in tests/tui/helpers.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.tui.helpers import SNAP_ROOT, ScriptedEngine


@pytest.fixture
def demo_root() -> Path:
    """The fixed demo folder, recreated for each test (paths in snapshots never change)."""
    shutil.rmtree(SNAP_ROOT, ignore_errors=True)
    SNAP_ROOT.mkdir(parents=True)
    yield SNAP_ROOT
    shutil.rmtree(SNAP_ROOT, ignore_errors=True)


@pytest.fixture
def scripted():
    ScriptedEngine.instances = []
    ScriptedEngine.script = "ok"
    ScriptedEngine.hold_after = None
    yield ScriptedEngine
    ScriptedEngine.instances = []
