"""No two modules of the core share a name (issue 42: 29 modules had names that repeated with
other meanings: three `command.py`, two `trial_data`, `training_state`, `conditioning`, ...).
A name is read without its package wherever it is imported as `from pkg import name`, logged,
or said in a comment, so each says what it holds. Packages count as modules: a `plan.py` beside
the `plan` package reads as the same thing."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "ltx_wizard" / "core"

# `__init__` names a package's own module: every package has one, by Python's rule, not ours.
ALLOWED = {"__init__"}


def core_names() -> dict[str, list[str]]:
    found: dict[str, list[str]] = defaultdict(list)
    for path in sorted(CORE.rglob("*.py")):
        if "__pycache__" not in path.parts:
            found[path.stem].append(path.relative_to(CORE).as_posix())
    for path in sorted(CORE.rglob("__init__.py")):
        if path.parent != CORE:
            found[path.parent.name].append(path.parent.relative_to(CORE).as_posix() + "/")
    return found


def test_no_two_core_modules_share_a_name():
    repeated = {name: where for name, where in core_names().items() if len(where) > 1 and name not in ALLOWED}
    assert not repeated, "\n".join(f"{name}: {', '.join(where)}" for name, where in sorted(repeated.items()))
