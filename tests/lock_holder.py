"""A second wizard holding a run's lock, as a real process: started, waited for until it holds
the lock (it says so on stdout), released when its stdin closes."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Iterator

_HOLD = (
    "import sys\n"
    "from ltx_wizard.core.io.workspace import run_lock\n"
    "with run_lock(sys.argv[1]):\n"
    "    print('held', flush=True)\n"
    "    sys.stdin.read()\n"
)


@contextlib.contextmanager
def lock_held_elsewhere(run_dir: Path) -> Iterator[subprocess.Popen[str]]:
    here = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (here, os.environ.get("PYTHONPATH")) if p)}
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(run_dir)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "held\n"  # waits for the lock
        yield proc
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=60)
