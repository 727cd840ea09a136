"""core/io/child_log.py: the one owner of "a child of core/proc streamed into a log file", which
prepare's scripts and the preprocessing step once each wrote out (open the log for append, then
core/proc's run_logged with a write into it)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.io.child_log import run_to_log

PACKAGE = Path(__file__).resolve().parents[3] / "ltx_wizard"
OWNER = PACKAGE / "core" / "io" / "child_log.py"


def _imports_run_logged(source: str) -> bool:
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module == "ltx_wizard.core.proc.lines":
            if any(alias.name == "run_logged" for alias in node.names):
                return True
    return False


def test_only_child_log_streams_a_child_into_a_log():
    users = [
        str(path.relative_to(PACKAGE))
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != OWNER and _imports_run_logged(path.read_text())
    ]
    assert users == [], "stream a child into a log through core/io/child_log.run_to_log: " + ", ".join(users)


async def test_the_command_then_its_output_are_appended_to_the_log(tmp_path):
    log, lines = tmp_path / "run" / "s.log", []
    log.parent.mkdir()
    log.write_bytes(b"earlier\n")
    code = await run_to_log(
        [sys.executable, "-c", "print('one'); print('two')"],
        cwd=tmp_path,
        env={},
        log=log,
        on_line=lines.append,
        root=tmp_path / "run",
    )
    assert code == 0 and lines == ["one", "two"]
    earlier, command, rest = log.read_text().split("\n", 2)
    assert earlier == "earlier" and command.startswith(f"$ {sys.executable} -c ")
    assert rest == "one\ntwo\n"


async def test_a_link_in_the_logs_place_is_refused_before_anything_runs(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("theirs\n")
    run = tmp_path / "run"
    run.mkdir()
    (run / "s.log").symlink_to(outside)
    marker = tmp_path / "ran"
    with pytest.raises(WizardError):
        await run_to_log(
            [sys.executable, "-c", f"open({str(marker)!r}, 'w')"],
            cwd=tmp_path,
            env={},
            log=run / "s.log",
            root=run,
        )
    assert outside.read_text() == "theirs\n" and not marker.exists()
