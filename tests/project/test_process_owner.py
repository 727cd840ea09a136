"""Only core/proc starts a child in a session of its own, signals a process group, or installs a
signal or exit handler (issue 42): every other module goes through its service, so there is one
stop rule, one registry and one signal handler. Read from the source (the AST), so a call spelled
through an alias or a `from os import killpg` is found too."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "ltx_wizard"
OWNER = PACKAGE / "core" / "proc"
# Stand-ins for foreign programs, not parts of the wizard: the simulated trainer (a trainer's own
# SIGTERM/SIGINT handling) and the simulated captioner server (serve_captioner.py's SIGTERM).
FOREIGN = {PACKAGE / "demo" / "sim" / "trainer.py", PACKAGE / "demo" / "sim" / "captioner.py"}
FORBIDDEN = {("os", "killpg"), ("os", "setsid"), ("signal", "signal"), ("atexit", "register")}


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def offences(source: str) -> list[str]:
    """`line: what` for each forbidden call or spelling in one module's source."""
    tree = ast.parse(source)
    aliases: dict[str, str] = {}  # a local name -> the module.function it stands for
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                aliases[alias.asname or alias.name] = alias.name
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _dotted(node.func)
        head, _, rest = name.partition(".")
        full = aliases.get(head, head) + (f".{rest}" if rest else "")
        if tuple(full.rsplit(".", 1)) in FORBIDDEN:
            found.append(f"{node.lineno}: {full}")
        elif name.endswith(".add_signal_handler"):
            found.append(f"{node.lineno}: loop.add_signal_handler")
        for kw in node.keywords:
            if kw.arg == "start_new_session" and not (
                isinstance(kw.value, ast.Constant) and kw.value.value is False
            ):
                found.append(f"{node.lineno}: start_new_session=True")
    return found


def test_only_core_proc_owns_sessions_groups_and_signal_handlers():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if OWNER in path.parents or path in FOREIGN:
            continue
        found += [f"{path.relative_to(ROOT)}:{hit}" for hit in offences(path.read_text())]
    assert found == [], "start and stop children through ltx_wizard/core/proc:\n" + "\n".join(found)


def test_the_checker_finds_every_spelling():
    source = """
import os, signal, atexit, subprocess
from os import killpg as kp
import signal as sg
os.killpg(1, 9)
kp(1, 9)
os.setsid()
sg.signal(2, None)
atexit.register(print)
loop.add_signal_handler(2, print)
subprocess.Popen(["x"], start_new_session=True)
subprocess.Popen(["x"], start_new_session=flag)
subprocess.Popen(["x"], start_new_session=False)
"""
    assert [hit.split(": ")[1] for hit in offences(source)] == [
        "os.killpg",
        "os.killpg",
        "os.setsid",
        "signal.signal",
        "atexit.register",
        "loop.add_signal_handler",
        "start_new_session=True",
        "start_new_session=True",
    ]
