"""Eight wizards start on one run folder at the same instant, a hundred times: one holder each.

Half of the rounds begin with a stale lock (a dead pid) in place, the case where a second
starter used to read a lock before its pid was written, take it as stale and steal it.
"""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.io.workspace import LOCK_NAME, run_lock

STARTERS = 8
ROUNDS = 100


def _starter(run_dir: str, start, tried, released, wins, errors) -> None:
    for round_ in range(ROUNDS):
        start.wait()
        try:
            with run_lock(run_dir):
                with wins.get_lock():
                    wins[round_] += 1
                tried.wait()  # hold until every starter has tried
                released.wait()
                continue
        except WizardError as exc:
            if "in use" not in exc.message:
                with errors.get_lock():
                    errors.value += 1
        except Exception:
            with errors.get_lock():
                errors.value += 1
        tried.wait()
        released.wait()


def test_eight_concurrent_starters_exactly_one_holder_each_round(tmp_path):
    ctx = multiprocessing.get_context("fork")
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    dead = int(
        subprocess.run(
            [sys.executable, "-c", "import os; print(os.getpid())"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    start, tried, released = (ctx.Barrier(STARTERS + 1) for _ in range(3))
    wins = ctx.Array("i", ROUNDS)
    errors = ctx.Value("i", 0)
    procs = [
        ctx.Process(target=_starter, args=(str(run_dir), start, tried, released, wins, errors))
        for _ in range(STARTERS)
    ]
    for proc in procs:
        proc.start()
    try:
        for round_ in range(ROUNDS):
            if round_ % 2:
                (run_dir / LOCK_NAME).write_text(f"{dead} 1\n")  # a stale lock to fight over
            start.wait(timeout=60)
            tried.wait(timeout=60)
            released.wait(timeout=60)
    finally:
        for proc in procs:
            proc.join(timeout=30)
            if proc.is_alive():
                proc.kill()
    assert list(wins) == [1] * ROUNDS
    assert errors.value == 0
    assert not (run_dir / LOCK_NAME).exists()
    assert sorted(os.listdir(run_dir)) == []  # no temp lock files left behind
