"""A planned run folder for the SkyPilot tests, and the Python that has SkyPilot (the wizard's own
lookup: in-process, $LTX_WIZARD_SKY_PYTHON, the `sky` program's interpreter), or a skip."""

from __future__ import annotations

from pathlib import Path

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.cloud.sky_python import find_sky_python
from tests.model_tree import ModelTree

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def planned_run(root: Path, *, nodes: int = 1, sim: str = "h100", extra: tuple[str, ...] = ()) -> Path:
    """`plan` into root/ws/run, from a checkout whose HEAD is COMMIT (a detached .git/HEAD)."""
    tree = ModelTree(root, sim=sim)
    (tree.checkout / ".git").mkdir()
    (tree.checkout / ".git" / "HEAD").write_text(COMMIT + "\n")
    assert main(tree.args("--nodes", str(nodes), *extra)) == 0
    return tree.run


def sky_python() -> str:
    python = find_sky_python()
    if python is None:
        pytest.skip("SkyPilot is not installed (set LTX_WIZARD_SKY_PYTHON to a Python that has it)")
    return python
