"""Text the wizard did not write reaches a terminal only through the one sanitiser.

The rule, read from the source of `tui/` and `commands/`: every argument of `print`, `Option`,
`Static` and `notify` that reads a field of an object (`render.prompt`, `exc.message`,
`f"... {state.error}"`; `self`'s own attributes aside) is wrapped in `clean_text`,
`clean_block` (core/base/text_safety.py), `safe_markup` or `plain` (tui/widgets/formatting.py),
or is on WIZARDS_OWN below: a field the wizard wrote itself (a number, a label, a path the plan
already refused control characters in). The line-printing helpers the commands share
(prepare's TerminalAsker.say, setup's _say) sanitise whatever they are given.

A plain name (`print(line)`) is not followed back to where it came from: the sanitisers sit at
the helpers above and at the screens' record fields, which is where foreign text comes in.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "ltx_wizard"
SINKS = {"print", "Option", "Static", "notify"}
SANITISERS = {"clean_text", "clean_block", "safe_markup", "plain", "dumps"}  # json.dumps escapes controls

# (module, field expression): the wizard's own words or numbers
WIZARDS_OWN = {
    ("tui/screens/monitor/actions.py", "proc.pid"),
    ("tui/screens/results/__init__.py", "Path(command[0]).name"),  # the player the wizard found on PATH
    ("tui/screens/summary.py", "box.value"),
    ("tui/screens/summary.py", "box.label"),
    ("tui/screens/intent.py", "c.label"),
    ("commands/preprocess.py", "after.reused"),
    ("commands/autotune.py", "summary.schedule_note"),
    ("commands/autotune.py", "summary.launch_line"),  # a command run as printed; paths refused with controls
    ("commands/plan.py", "folder.root"),  # the run folder: require_plain_path refused controls
    ("commands/plan.py", "folder.plan"),
    ("commands/plan.py", "draft.tier.display_name"),
    ("commands/plan.py", "draft.recipe"),
    ("commands/plan.py", "draft.base_config"),
    ("commands/plan.py", "draft.record.data"),
    ("commands/plan.py", "multi.nodes"),
    ("commands/plan.py", "multi.gpus_per_node"),
    ("commands/plan.py", "multi.total_gpus"),
    ("commands/plan.py", "multi.sbatch_path"),
    ("commands/models.py", "item.ok"),
}


def _name(func: ast.expr) -> str | None:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def unsanitised_fields(node: ast.AST) -> list[str]:
    """The field reads in `node` that no sanitiser call wraps."""
    found: list[str] = []

    def walk(n: ast.AST) -> None:
        if isinstance(n, ast.Call):
            if _name(n.func) in SANITISERS:
                return
            # a method call reads its receiver: `draft.diff.rstrip()` reads draft.diff
            receiver = n.func.value if isinstance(n.func, ast.Attribute) else None
            for child in [receiver, *n.args, *(k.value for k in n.keywords)]:
                if child is not None:
                    walk(child)
            return
        if isinstance(n, ast.Attribute):
            root: ast.expr = n
            while isinstance(root, (ast.Attribute, ast.Subscript, ast.Call)):
                root = root.func if isinstance(root, ast.Call) else root.value
            if not (isinstance(root, ast.Name) and root.id in ("self", "sys", "os")):
                if not isinstance(root, ast.Constant):
                    found.append(ast.unparse(n))
                return
        for child in ast.iter_child_nodes(n):
            walk(child)

    walk(node)
    return found


def sink_reads(source: str) -> list[tuple[int, str]]:
    """(line, field) for each field a sink takes unsanitised, in one module's source."""
    reads = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and _name(node.func) in SINKS and node.args:
            reads += [(node.lineno, field) for field in unsanitised_fields(node.args[0])]
    return reads


def test_every_screen_and_print_takes_foreign_text_through_the_sanitiser():
    bad = []
    for folder in ("tui", "commands"):
        for path in sorted((PACKAGE / folder).rglob("*.py")):
            module = str(path.relative_to(PACKAGE))
            for line, field in sink_reads(path.read_text(encoding="utf-8")):
                if (module, field) not in WIZARDS_OWN:
                    bad.append(f"{module}:{line}: {field}")
    assert not bad, "foreign text shown without clean_text/clean_block/safe_markup/plain:\n" + "\n".join(bad)


def test_the_line_helpers_sanitise_what_they_are_given():
    for module, helper in (("commands/prepare.py", "say"), ("commands/setup.py", "_say")):
        tree = ast.parse((PACKAGE / module).read_text(encoding="utf-8"))
        body = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == helper)
        calls = {_name(c.func) for c in ast.walk(body) if isinstance(c, ast.Call)}
        assert "clean_block" in calls, f"{module} {helper} prints without clean_block"


def test_the_rule_catches_a_raw_field():
    """The check itself can fail: the Results screen's old Option line is caught."""
    old = 'Option(f"{TITLES[category]} {len(seen)}: {render.prompt}", id=render.prompt)'
    assert [field for _, field in sink_reads(old)] == ["render.prompt"]
    assert sink_reads('Option(plain(f"{n}: {render.prompt}"))') == []
