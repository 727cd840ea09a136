"""The run folder's JSON files are named in one place, its table (core/io/run_folder.py): no other
module spells one of their names as a string of its own (a path built by hand drifts from the
table, and from the one declaration that reads the file)."""

from __future__ import annotations

import ast
from pathlib import Path

import ltx_wizard
from ltx_wizard.core.io import run_folder

PACKAGE = Path(ltx_wizard.__file__).parent
TABLE_MODULE = PACKAGE / "core" / "io" / "run_folder.py"


def test_no_module_but_the_table_names_a_run_folder_json_file():
    records = [f for f in run_folder.TABLE if f.kind in ("json", "jsonl")]
    names = {f.rel for f in records} | {f.name for f in records}
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == TABLE_MODULE:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in names:
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {node.value!r}")
    assert found == []
