"""`ltx-wizard compare RUN --yes` started in the background from the Monitor (issue 44, Deliver 6:
"also reached from the Monitor once two checkpoints exist"), as the evaluation is: a detached child
of core/proc (its own session, so it survives the wizard and an SSH drop), its output in
logs/compare.log, its pid in logs/compare.pid. What the comparison finds lands in compare.json, which
the Monitor, the Results screen, status and run-summary.md read.

It is offered once the run is not training (the programs want the same GPUs) and has kept at least
MIN_KEPT checkpoints (one alone leaves nothing to compare).
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Sequence

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.io.pid_records import read_record, record_text
from ltx_wizard.core.io.run_folder import COMPARE_LOG, COMPARE_PID
from ltx_wizard.core.io.safe_fs import check_inside, write_text
from ltx_wizard.core.launch.background import running_pid
from ltx_wizard.core.proc.spawn import spawn

MIN_KEPT = 2
_started: list[subprocess.Popen[bytes]] = []  # comparisons this process started: reaped, no zombies


def offered(state: str, kept: int) -> bool:
    """The Monitor offers compare: training is over (finished, stopped, failed) and it kept two or more."""
    return state != "live" and kept >= MIN_KEPT


def why_not(state: str, kept: int) -> str:
    """What the Monitor says when compare is asked for but not offered."""
    if state == "live":
        return "training still runs: compare once it has ended (the GPUs are taken)"
    return f"compare needs {MIN_KEPT} kept checkpoints; this run has {kept}"


def compare_pid(run_dir: Path) -> int | None:
    """The live comparison this run folder's record names (checked against its start time)."""
    _started[:] = [p for p in _started if p.poll() is None]
    record = read_record(COMPARE_PID.path(run_dir), what=COMPARE_PID.what)
    return record.pid if record.pid is not None and record.alive(verified=True) else None


def start_compare(run_dir: Path, argv: Sequence[str]) -> tuple[int, Path]:
    """Start `argv` (the front end's `ltx-wizard compare RUN --yes`) detached; returns (pid, its log).
    UsageError while training or another comparison of this run runs."""
    run = Path(run_dir)
    training = running_pid(run)
    if training is not None:
        raise UsageError(f"training of {run} still runs (pid {training}): compare once it has ended")
    other = compare_pid(run)
    if other is not None:
        raise UsageError(
            f"a comparison of {run} already runs (pid {other}): its log is {COMPARE_LOG.path(run)}"
        )
    log = check_inside(run, COMPARE_LOG.path(run))
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "a", encoding="utf-8") as handle:  # WizardError when it cannot start
        proc = spawn(argv, kind="detached", cwd=run, stdout=handle, stderr=subprocess.STDOUT).popen
    _started.append(proc)
    write_text(COMPARE_PID.path(run), record_text(proc.pid), root=run)
    return proc.pid, log
