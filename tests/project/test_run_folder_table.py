"""The run folder's files are named in one place, its table (core/io/run_folder.py): no other
module spells one of their names as a string of its own (a path built by hand drifts from the
table, and for a JSON file from the one declaration that reads it). The text files (config.yaml,
plan.md, launch.sh, the logs, run-summary.md) are held to it too."""

from __future__ import annotations

import ast
from pathlib import Path

import ltx_wizard
from ltx_wizard.core.io import run_folder

PACKAGE = Path(ltx_wizard.__file__).parent
TABLE_MODULE = PACKAGE / "core" / "io" / "run_folder.py"


def _spelled_by_hand(records: list[run_folder.RunFile]) -> list[str]:
    names = {f.rel for f in records} | {f.name for f in records}
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == TABLE_MODULE:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in names:
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {node.value!r}")
    return found


def test_no_module_but_the_table_names_a_run_folder_json_file():
    assert _spelled_by_hand([f for f in run_folder.TABLE if f.kind in ("json", "jsonl")]) == []


def test_no_module_but_the_table_names_a_run_folder_text_file():
    texts = [f for f in run_folder.TABLE if f.kind == "text"]
    assert {"config.yaml", "plan.md", "launch.sh", "logs/train.log", "run-summary.md"} <= {
        f.rel for f in texts
    }
    assert _spelled_by_hand(texts) == []


def _joins_by_hand(names: set[str]) -> list[str]:
    """Paths built from a folder's name: `x / "logs"` or `Path("logs")`."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == TABLE_MODULE:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
                parts = [node.left, node.right]
            elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Path":
                parts = list(node.args)
            else:
                continue
            for part in parts:
                if isinstance(part, ast.Constant) and part.value in names:
                    found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {part.value!r}")
    return found


def test_no_module_but_the_table_builds_a_run_folder_subfolder_path():
    folders = {f.rel for f in run_folder.TABLE if f.kind == "folder"}
    assert folders == {"dataset", "outputs", "logs", "overfit", "holdout", "outputs/compare/renders", "sky"}
    assert _joins_by_hand(folders) == []
