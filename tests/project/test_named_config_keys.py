"""A trainer config key read by its name goes through the typed view (core/io/trainer_config.py),
never through `get_dotted` with the key spelled out: the view checks the key against the trainer's
LtxTrainerConfig and the value's type. `get_dotted` stays for keys that are data (a patch's own
key set, the YAML patcher's targets), so a call is flagged when its key is a string literal, an
f-string, a module constant holding one, or a loop variable over a literal list of them."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "ltx_wizard"
ALLOWED = {Path("ltx_wizard/core/io/yaml_patch.py")}  # where get_dotted lives (its docstring's example)


def _literal(node: ast.AST | None) -> bool:
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str))


def _literals(node: ast.AST | None, constants: set[str]) -> bool:
    """A literal tuple/list of keys (or of rows led by a key), or a module constant holding one."""
    if isinstance(node, ast.Name):
        return node.id in constants
    if isinstance(node, (ast.Tuple, ast.List)) and node.elts:
        rows = [e.elts[0] if isinstance(e, ast.Tuple) and e.elts else e for e in node.elts]
        return all(_literal(r) for r in rows)
    return False


def _module_constants(tree: ast.Module) -> set[str]:
    """Module-level names bound to a key literal, or to a literal list of them."""
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if _literal(node.value) or _literals(node.value, set()):
                found.update(t.id for t in targets if isinstance(t, ast.Name))
    return found


def _loops(tree: ast.AST, constants: set[str]) -> list[tuple[str, ast.AST]]:
    """(name, the loop) for each `for` or comprehension binding `name` from a literal list of keys."""
    found = []
    for node in ast.walk(tree):
        bindings = [node] if isinstance(node, ast.For) else getattr(node, "generators", [])
        for loop in bindings:
            target = loop.target
            first = target.elts[0] if isinstance(target, ast.Tuple) and target.elts else target
            if _literals(loop.iter, constants) and isinstance(first, ast.Name):
                found.append((first.id, node))
    return found


def _aliases(tree: ast.AST) -> set[str]:
    names = {"get_dotted"}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            names.update(a.asname for a in node.names if a.name == "get_dotted" and a.asname)
    return names


def _key_of(node: ast.Call, calls: set[str]) -> ast.AST | None:
    """The key argument of a `get_dotted` call; None for any other call."""
    func = node.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    if name not in calls:
        return None
    if len(node.args) > 1:
        return node.args[1]
    return next((k.value for k in node.keywords if k.arg == "path"), None)


def named_reads(source: str) -> list[int]:
    """The lines where `get_dotted` is called with a named (literal) key."""
    tree = ast.parse(source)
    constants, calls = _module_constants(tree), _aliases(tree)
    found = set()
    for node in ast.walk(tree):
        key = _key_of(node, calls) if isinstance(node, ast.Call) else None
        if _literal(key) or (isinstance(key, ast.Name) and key.id in constants):
            found.add(getattr(node, "lineno", 0))
    for name, loop in _loops(tree, constants):
        for node in ast.walk(loop):
            key = _key_of(node, calls) if isinstance(node, ast.Call) else None
            if isinstance(key, ast.Name) and key.id == name:
                found.add(getattr(node, "lineno", 0))
    return sorted(found)


def test_no_named_trainer_key_is_read_with_get_dotted():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(ROOT)
        if where not in ALLOWED:
            found += [f"{where}:{line}" for line in named_reads(path.read_text(encoding="utf-8"))]
    assert found == [], "read these through core/io/trainer_config.py's typed view: " + ", ".join(found)


def test_the_check_sees_each_way_of_naming_a_key():
    source = """
from ltx_wizard.core.io.yaml_patch import get_dotted as dotted
from ltx_wizard.core.io import yaml_patch
STEPS = "optimization.steps"
KEYS = ("lora.rank", "lora.alpha")
ROWS = (("model.model_path", "Checkpoint"),)
def f(data, changes, section):
    get_dotted(data, "validation.samples", None)          # 8: a literal
    yaml_patch.get_dotted(data, path=f"{section}.rank")   # 9: an f-string, through the module
    dotted(data, STEPS)                                   # 10: a constant, through an alias
    for key in KEYS:
        get_dotted(data, key, None)                       # 12: a loop over literals
    for key, label in ROWS:
        get_dotted(data, key, None)                       # 14: rows led by a key
    for key in changes:
        get_dotted(data, key, None)                       # data: a patch's own keys
    [get_dotted(data, k) for k in ("a.b", "c.d")]         # 17: a comprehension over literals
    return {k: get_dotted(data, k) for k in changes}      # data
"""
    assert named_reads(source) == [8, 9, 10, 12, 14, 17]
