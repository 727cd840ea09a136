"""A Python that has SkyPilot, and the task files and commands checked by SkyPilot's own code in it.

SkyPilot lives in an environment of its own (it pins click<8.2, which the wizard's own tools
outgrew), so its parser runs in a child process (core/proc). The Python is, in this order: this
one, when `import sky` works here; $LTX_WIZARD_SKY_PYTHON; the interpreter of the `sky` program on
PATH, read from its first line (the shebang uv tool / pipx write).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Mapping

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.base.text_safety import clean_text, clip
from ltx_wizard.core.io.bounded import read_bytes
from ltx_wizard.core.proc.spawn import spawn

ENV = "LTX_WIZARD_SKY_PYTHON"
TIMEOUT_S = 300.0  # SkyPilot imports slowly on a loaded machine
INSTALL_HINT = (
    "SkyPilot is not installed: install it in an environment of its own, `uv tool install skypilot` "
    "or `pipx install skypilot` (it pins click<8.2, which the wizard's environment cannot share), "
    f"or point ${ENV} at a Python that has it; then run this again"
)

# Run in SkyPilot's Python: each task file through sky.Task.from_yaml, each command through the
# `sky` command tree's own parser (click's make_context: parsed and checked, never run).
_CHECK = """
import json, sys
import sky
from sky.client.cli import command
problems = []
job = json.loads(sys.argv[1])
for path in job["tasks"]:
    try:
        sky.Task.from_yaml(path)
    except Exception as exc:
        problems.append(f"{path}: {exc}")
for argv in job["commands"]:
    group, words = command.cli, list(argv[1:])
    try:
        while words and hasattr(group, "commands") and words[0] in group.commands:
            group = group.commands[words.pop(0)]
        group.make_context(" ".join(argv[:1]), words, resilient_parsing=False)
    except Exception as exc:
        problems.append(f"{' '.join(argv)}: {exc}")
print(json.dumps(problems))
"""


def _shebang_python(program: str) -> str | None:
    try:
        head = read_bytes(program, what="the sky program", limit=1 << 20)[:512]
    except WizardError:  # not a small regular file: no script to read an interpreter from
        return None
    first = head.split(b"\n", 1)[0].decode("utf-8", "replace")
    if first.startswith("#!"):
        words = first[2:].split()
        if words and os.access(words[0], os.X_OK) and "python" in Path(words[0]).name:
            return words[0]
    return None


def find_sky_python(env: Mapping[str, str] | None = None) -> str | None:
    env = os.environ if env is None else env
    if importlib.util.find_spec("sky") is not None:
        return sys.executable
    given = env.get(ENV)
    if given and os.access(given, os.X_OK):
        return given
    program = shutil.which("sky", path=env.get("PATH"))
    return _shebang_python(program) if program else None


def check_with_skypilot(
    python: str, tasks: list[Path], commands: list[list[str]], overlay: Mapping[str, str] | None = None
) -> list[str]:
    """What SkyPilot's own code refuses, one line each ([] when it accepts everything). `overlay`:
    variables the commands read that the README tells the user to export first."""
    job = json.dumps({"tasks": [str(t) for t in tasks], "commands": commands})
    child = spawn(
        [python, "-c", _CHECK, job],
        env={**os.environ, **(overlay or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        out, err = child.popen.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        child.stop_blocking()
        raise WizardError(f"SkyPilot's check did not answer within {TIMEOUT_S:.0f} s ({python})") from None
    finally:
        child.release()
    try:
        problems = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        tail = clip(clean_text(err.strip().splitlines()[-1] if err.strip() else "no output"), 300)
        raise WizardError(f"SkyPilot's check failed in {python}: {tail}") from None
    return [clip(clean_text(str(p)), 400) for p in problems]
