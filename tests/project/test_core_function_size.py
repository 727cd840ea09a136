"""No function in the core is longer than ~60 lines: long ones are split into named steps."""

from __future__ import annotations

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "ltx_wizard" / "core"
LIMIT = 60
NOT_YET: set[str] = set()


def long_functions(root: Path = CORE, limit: int = LIMIT) -> list[str]:
    """`file:function (lines)` for every def in `root` spanning more than `limit` lines."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                size = node.end_lineno - node.lineno + 1
                if size > limit:
                    found.append(f"{path.relative_to(root)}:{node.name} ({size})")
    return found


def test_no_core_function_is_over_the_limit():
    found = {entry.rsplit(" (", 1)[0] for entry in long_functions()}
    assert found - NOT_YET == set(), sorted(found - NOT_YET)


def test_the_lister_finds_a_long_function(tmp_path):
    (tmp_path / "m.py").write_text("def f():\n" + "    x = 1\n" * 70 + "\ndef g():\n    pass\n")
    assert long_functions(tmp_path) == ["m.py:f (71)"]
