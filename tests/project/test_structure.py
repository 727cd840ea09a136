"""The package's structure, read from its source: no module reads another package's private
names (a `_name` is its own package's business), whether imported by name (`from x import _y`)
or read through a module (`lp._STEP`)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "ltx_wizard"


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


MODULES = _modules()


def _is_package(name: str) -> bool:
    return MODULES.get(name, Path()).name == "__init__.py"


def _package_of(name: str) -> str:
    """The package a module belongs to: itself for a package, else its parent."""
    return name if _is_package(name) else name.rpartition(".")[0]


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _absolute(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = _package_of(module).split(".")
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def private_reads(module: str, tree: ast.AST) -> list[str]:
    """`where: what` for each private name of another package this module reads."""
    own = _package_of(module)
    aliases: dict[str, str] = {}  # a local name bound to a project module -> that module
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES and alias.asname:
                    aliases[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(module, node)
            if source not in MODULES:
                continue
            for alias in node.names:
                full = f"{source}.{alias.name}"
                if full in MODULES:  # a module imported by name
                    aliases[alias.asname or alias.name] = full
                elif _private(alias.name) and _package_of(source) != own:
                    found.append(f"{module}:{node.lineno}: from {source} import {alias.name}")
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and _private(node.attr)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
        ):
            target = aliases[node.value.id]
            if _package_of(target) != own:
                found.append(f"{module}:{node.lineno}: {node.value.id}.{node.attr} ({target})")
    return found


def test_no_module_reads_a_private_name_of_another_package():
    found = []
    for name, path in MODULES.items():
        found += private_reads(name, ast.parse(path.read_text(encoding="utf-8")))
    assert found == []


def test_the_check_sees_both_ways_of_reading_a_private_name():
    source = (
        "from ltx_wizard.core.trainer_output import grammar as g\n"
        "from ltx_wizard.core.trainer_output.line_parser import _Record\n"
        "x = g._HIDDEN\ny = g.STEP\n"
    )
    found = private_reads("ltx_wizard.core.monitor.run_log", ast.parse(source))
    assert [f.split(": ", 1)[1] for f in found] == [
        "from ltx_wizard.core.trainer_output.line_parser import _Record",
        "g._HIDDEN (ltx_wizard.core.trainer_output.grammar)",
    ]
    # inside its own package a module may share its private names
    assert private_reads("ltx_wizard.core.trainer_output.history_scan", ast.parse(source)) == []


def _root_name(node: ast.expr) -> str | None:
    """`X` of a base written `X`, `X[T]` or `X.Y`."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def mixed_classes(module: str, tree: ast.AST) -> list[str]:
    """`where: class` for each class built from two or more classes, one of them the project's:
    a mixin. Objects hold their parts instead (Generic and Protocol do not count)."""
    ours = {n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and _absolute(module, node).startswith("ltx_wizard"):
            ours |= {alias.asname or alias.name for alias in node.names}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            bases = [_root_name(b) for b in node.bases if _root_name(b) not in ("Generic", "Protocol")]
            if len(bases) > 1 and any(b in ours for b in bases):
                found.append(f"{module}:{node.lineno}: {node.name}")
    return found


def test_no_class_mixes_in_a_class_of_the_project():
    found = []
    for name, path in MODULES.items():
        found += mixed_classes(name, ast.parse(path.read_text(encoding="utf-8")))
    assert found == []


def test_the_check_sees_a_mixin():
    source = (
        "from enum import Enum\nfrom textual.app import App\n"
        "from ltx_wizard.tui.navigation import PhaseNavigation\nclass Base: pass\n"
        "class A(PhaseNavigation, App[int]): pass\nclass B(Base, Enum): pass\n"
        "class C(str, Enum): pass\nclass D(App[int]): pass\n"
    )
    found = mixed_classes("ltx_wizard.tui.app", ast.parse(source))
    assert [f.split(": ", 1)[1] for f in found] == ["A", "B"]
