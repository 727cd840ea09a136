"""Where a sink's argument comes from, followed back: a plain name to what the function assigned
it, `self.x` to what the class's methods assigned it. An origin that reads another object's field
(`row.caption`, `exc.message`) and passes no sanitiser is foreign text shown raw."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

SINKS = {"print", "Option", "Static", "notify"}
# a widget's update and a log's write: a field read inline there, and what a name or a `self`
# field brings them (`caption = row.caption; label.update(caption)`)
FLOW_SINKS = {"update", "write"}
SANITISERS = {"clean_text", "clean_block", "safe_markup", "plain", "dumps"}  # json.dumps escapes controls
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
# calls that hand their text on (a value followed back through them is the same text); any other
# call a name was assigned from computes a value of the wizard's own (a check's result, a path)
PASS_THROUGH = {
    "str",
    "repr",
    "format",
    "join",
    "strip",
    "rstrip",
    "lstrip",
    "replace",
    "lower",
    "upper",
    "title",
    "capitalize",
    "splitlines",
    "split",
    "rsplit",
    "partition",
    "get",
    "removeprefix",
    "removesuffix",
    "fsdecode",
    "decode",
    "read_text",
    "readline",
    "readlines",
    "read",
    "assemble",
    "Text",
    "append",
}


def name_of(func: ast.expr) -> str | None:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _targets(target: ast.expr, value: ast.expr | None) -> list[tuple[ast.expr, ast.expr | None]]:
    """(target, its value) for each name or attribute a (tuple) assignment binds."""
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, ast.IfExp):
        return _targets(target, value.body) + _targets(
            target, value.orelse
        )  # `a, b = (x, y) if c else (z, w)`
    if isinstance(target, (ast.Tuple, ast.List)):
        values = value.elts if isinstance(value, (ast.Tuple, ast.List)) else None
        if values is not None and len(values) == len(target.elts):
            return [pair for t, v in zip(target.elts, values) for pair in _targets(t, v)]
        return [pair for t in target.elts for pair in _targets(t, value)]
    return [(target, value)]


def _bindings(scope: ast.AST) -> list[tuple[ast.expr, ast.expr]]:
    """Every (target, value) the scope (a function, nested ones included) assigns."""
    found: list[tuple[ast.expr, ast.expr | None]] = []
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                found += _targets(target, node.value)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            found += _targets(node.target, node.value)
        elif isinstance(node, ast.NamedExpr):
            found.append((node.target, node.value))
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            found += _targets(node.target, node.iter)  # an element of a foreign list is foreign
    return [(t, v) for t, v in found if v is not None]


@dataclass
class Scope:
    """A function's local names, and its class's `self.x` fields, each with the values assigned."""

    names: dict[str, list[tuple[ast.expr, Scope]]] = field(default_factory=dict)
    fields: dict[str, list[tuple[ast.expr, Scope]]] = field(default_factory=dict)


def _scope_of(function: ast.AST, fields: dict[str, list[tuple[ast.expr, Scope]]]) -> Scope:
    scope = Scope(fields=fields)
    for target, value in _bindings(function):
        if isinstance(target, ast.Name):
            scope.names.setdefault(target.id, []).append((value, scope))
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
            if target.value.id == "self":
                fields.setdefault(target.attr, []).append((value, scope))
    return scope


def unsanitised_fields(node: ast.AST, scope: Scope | None = None) -> list[str]:
    """The field reads `node` shows that no sanitiser call wraps, followed through the names and
    `self` fields of `scope` (`caption <- row.caption`)."""
    found: list[str] = []
    seen: set[tuple[str, str]] = set()

    def follow(kind: str, name: str, values: list[tuple[ast.expr, Scope]], via: str) -> None:
        if (kind, name) in seen:
            return
        seen.add((kind, name))
        for value, inner in values:
            walk(value, inner, f"{via}{name} <- ")

    def walk(n: ast.AST, sc: Scope | None, via: str) -> None:
        if isinstance(n, ast.Call):
            if name_of(n.func) in SANITISERS or (via and name_of(n.func) not in PASS_THROUGH):
                return
            # a method call reads its receiver: `draft.diff.rstrip()` reads draft.diff
            receiver = n.func.value if isinstance(n.func, ast.Attribute) else None
            for child in [receiver, *n.args, *(k.value for k in n.keywords)]:
                if child is not None:
                    walk(child, sc, via)
            return
        if isinstance(n, FUNCTIONS):
            return
        if isinstance(n, ast.IfExp):  # the condition picks a value; only the values are shown
            walk(n.body, sc, via)
            walk(n.orelse, sc, via)
            return
        if isinstance(n, ast.Name):
            if sc is not None and n.id in sc.names:
                follow("name", n.id, sc.names[n.id], via)
            return
        if isinstance(n, ast.Attribute):
            root: ast.expr = n
            first: ast.expr = n
            while isinstance(root, (ast.Attribute, ast.Subscript, ast.Call)):
                if isinstance(root, ast.Attribute):
                    first = root
                root = root.func if isinstance(root, ast.Call) else root.value
            if isinstance(root, ast.Name) and root.id == "self":
                attr = first.attr if isinstance(first, ast.Attribute) else ""
                if sc is not None and attr in sc.fields:
                    follow("self", f"self.{attr}", sc.fields[attr], via)
                return
            if not (isinstance(root, ast.Name) and root.id in ("sys", "os")):
                if not isinstance(root, ast.Constant):
                    found.append(via + ast.unparse(n))
                return
        for child in ast.iter_child_nodes(n):
            walk(child, sc, via)

    walk(node, scope, "")
    return found


def _scopes(tree: ast.AST) -> dict[ast.AST, Scope]:
    """Each outermost function's scope; the methods of one class share its `self` fields."""
    scopes: dict[ast.AST, Scope] = {}

    def visit(node: ast.AST, fields: dict[str, list[tuple[ast.expr, Scope]]] | None) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, {})
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                scopes[child] = _scope_of(child, fields if fields is not None else {})
            else:
                visit(child, fields)

    visit(tree, None)
    return scopes


def sink_reads(source: str) -> list[tuple[int, str]]:
    """(line, field) for each field a sink takes unsanitised, in one module's source; a field
    reached through a name or a `self` field is written `name <- origin`."""
    tree = ast.parse(source)
    scope_of: dict[int, Scope] = {}
    for function, scope in _scopes(tree).items():
        for node in ast.walk(function):
            scope_of.setdefault(id(node), scope)
    reads = []
    for node in ast.walk(tree):  # a sink outside any function: no names to follow
        sink = name_of(node.func) if isinstance(node, ast.Call) else None
        if isinstance(node, ast.Call) and sink in SINKS | FLOW_SINKS and node.args:
            scope = scope_of.get(id(node))
            found = unsanitised_fields(node.args[0], scope)
            reads += [(node.lineno, f) for f in found]
    return sorted(set(reads))


def origin(read: str) -> str:
    """The field a read comes from, without the names it passed through."""
    return read.rsplit(" <- ", 1)[-1]
