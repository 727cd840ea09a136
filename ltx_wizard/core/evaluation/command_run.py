"""One process of the evaluation (a validate-only trainer run, or one pipeline render): a child of
core/proc (its own session, tagged, registered), its output appended to `logs/eval.log` as it
comes and read for the few things the job acts on (out of memory, the step-0 renders saved, the
failure's line), and taken down with every rank it started by the one stop rule.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
from dataclasses import dataclass
from typing import IO, Mapping, Sequence

from ltx_wizard.core.proc.spawn import spawn
from ltx_wizard.core.proc.stop import TRAINER_GRACES
from ltx_wizard.core.trainer_output.grammar import OOM  # torch's and CUDA's own words

# ltx_trainer/validation_runner.py ValidationRunner.run, once a round's renders are written
STEP0_SAVED = re.compile(r"Validation samples for step 0 saved")
# scripts/train.py main's refusal, or the last exception line of a traceback
_FAILURE = re.compile(r"^(?:\[rank\d+\]:\s*)?(Error: .+|[\w.]*(?:Error|Exception): .+)$")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
GRACE_S = TRAINER_GRACES.term_s  # as autotune gives a launcher to stop its ranks


@dataclass
class Outcome:
    code: int | None = None  # the exit status; None while it runs
    oom: bool = False
    step0_saved: bool = False
    failure: str | None = None  # the line that says why it failed


class Child:
    def __init__(self, argv: Sequence[str], cwd: str, env: Mapping[str, str], log: IO[str]) -> None:
        self.outcome = Outcome()
        self._log = log
        self.child = spawn(  # WizardError when it cannot start
            argv,
            env={**os.environ, **env},
            graces=TRAINER_GRACES,
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            encoding="utf-8",
            errors="replace",
            bufsize=1,
        )
        self.proc = self.child.popen
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._log.write(line)
            self._log.flush()
            self._scan(_ANSI.sub("", line).strip())

    def _scan(self, line: str) -> None:
        if OOM.search(line):
            self.outcome.oom = True
        if STEP0_SAVED.search(line):
            self.outcome.step0_saved = True
        match = _FAILURE.match(line)
        # train.py's own refusal says it best; otherwise the last exception line
        if match and not (self.outcome.failure or "").startswith("Error: "):
            self.outcome.failure = match.group(1)[:400]

    def poll(self) -> int | None:
        code = self.proc.poll()
        if code is not None:
            self._reader.join(timeout=5.0)  # the last lines are read before the outcome is
            self.outcome.code = code
            self.child.release()  # out of the registry once nothing of it is left
        else:
            self.child.track()  # ranks that leave the group are remembered while it runs
        return code

    def stop(self, grace_s: float = GRACE_S) -> None:
        """The stop rule on the group (`grace_s` after SIGTERM), ranks that left it too."""
        self.child.graces = self.child.graces.with_term(grace_s)
        self.child.stop_blocking()
        self.proc.wait()
        self._reader.join(timeout=5.0)
