"""The README's first command: one line between its markers, and safe on a PEP 668 system Python."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def block(name: str) -> list[str]:
    """The lines between <!-- name --> and <!-- /name -->, fences dropped (as .ci/run reads them)."""
    text = README.read_text(encoding="utf-8")
    match = re.search(rf"<!-- {name} -->\n(.*?)<!-- /{name} -->", text, re.S)
    assert match, f"README.md has no <!-- {name} --> ... <!-- /{name} --> block"
    return [line for line in match.group(1).splitlines() if line.strip() and not line.startswith("```")]


def test_the_run_command_is_one_line_that_installs_into_a_venv_and_starts_the_demo():
    lines = block("run-command")
    assert len(lines) == 1
    steps = [shlex.split(part) for part in lines[0].split("&&")]
    assert steps[0] == ["python3", "-m", "venv", ".venv"]  # never pip into the system interpreter
    assert steps[1][:2] == [".venv/bin/pip", "install"] and "." in steps[1]
    assert steps[-1] == [".venv/bin/ltx-wizard", "--demo"]


def test_the_test_command_block_ci_reads_runs_every_test():
    lines = block("test-command")
    assert len(lines) == 1
    steps = [shlex.split(part) for part in lines[0].split("&&")]
    runs = [step for step in steps if step[:3] == [".venv/bin/python", "-m", "pytest"]]
    # the parallel pass leaves out exactly what the serial pass runs: nothing is skipped
    assert [run[run.index("-m", 3) + 1] for run in runs] == ["serial", "not serial"]
    assert "-n" not in runs[0] and "-n" in runs[1]
    # modules that ask for one worker (xdist_group) get it only under --dist loadgroup
    grouped = [
        p for p in (README.parent / "tests").rglob("test_*.py") if "xdist_group(" in p.read_text("utf-8")
    ]
    if grouped:
        assert runs[1][runs[1].index("--dist") + 1] == "loadgroup", grouped
