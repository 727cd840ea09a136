"""Fixtures for the TUI tests (helpers live in tests/tui/helpers.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tui.helpers import ScriptedEngine


@pytest.fixture
def demo_root(tmp_path: Path) -> Path:
    """This test's own demo folder (two test runs at once never share one)."""
    root = tmp_path / "demo"
    root.mkdir()
    return root


@pytest.fixture
def scripted():
    ScriptedEngine.instances = []
    ScriptedEngine.script = "ok"
    ScriptedEngine.hold_after = None
    yield ScriptedEngine
    ScriptedEngine.instances = []
