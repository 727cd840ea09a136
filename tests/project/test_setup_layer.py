"""core/setup is Phase 0, a bare box made ready: no other core package reads it (issue 42). The
plan's checks it once held (the fit gate, the latents' fit and disk, the W&B login) live with
the plan and its inputs, so that setup sits just above inputs in the core-layers contract and the
layers say the phase order instead of an accident of where a check was written."""

from __future__ import annotations

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "ltx_wizard" / "core"
SETUP = CORE / "setup"


def _imported(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):  # lazy imports inside functions and TYPE_CHECKING ones included
        if isinstance(node, ast.ImportFrom) and node.module:
            found += [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
    return found


def test_no_core_package_reads_setup() -> None:
    readers = []
    for path in sorted(CORE.rglob("*.py")):
        if SETUP in path.parents:
            continue
        names = _imported(ast.parse(path.read_text(encoding="utf-8")))
        readers += [f"{path.relative_to(CORE)}: {n}" for n in names if n.startswith("ltx_wizard.core.setup")]
    assert not readers, "core/setup is read by the core:\n" + "\n".join(readers)
