"""`<run>/autotune.log`: append-only, one human line and one JSON line per trial, flushed at once.

The JSON lines make the log the resume point: an interrupted autotune reads them back and does
not rerun a trial that already ended (a cancelled one is run again). Nothing is ever rewritten.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from ltx_wizard.core.tuning.results import AutotuneSummary, Confirmation, TrialResult
from ltx_wizard.core.autotune.outputs.presenter import confirmation_line, human_line
from ltx_wizard.core.io.bounded import loads_json, read_bytes
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.io.safe_fs import open_append, os_failure

LOG_MAX_BYTES = 64 * 2**20  # a few KB per trial; far more is not our log


class ResultsLog:
    def __init__(self, path: Path, root: Path | None = None) -> None:
        self.path = path
        self.root = root  # the run folder: appends are checked to stay inside it

    def _append(self, lines: list[str]) -> None:
        # One write per call, then fsync: a crash or an SSH drop loses at most the trial under way.
        try:
            with open_append(self.path, root=self.root) as handle:
                handle.write("".join(line + "\n" for line in lines))
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:  # a full disk: one line, not a traceback
            raise os_failure(self.path, exc) from None

    def session_started(self, description: str) -> None:
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        self._append([f"# {stamp} autotune started: {description}"])

    def stopped(self, reason: str) -> None:
        """A comment line only: no record, so the next run resumes (sweep/setup_stop.py)."""
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        self._append([f"# {stamp} autotune stopped: {reason}"])

    def trial(self, result: TrialResult) -> None:
        record = {"kind": "trial", **result.model_dump(mode="json")}
        self._append([human_line(result), json.dumps(record, sort_keys=True)])

    def confirmation(self, conf: Confirmation) -> None:
        record = {"kind": "confirmation", **conf.model_dump(mode="json")}
        self._append([confirmation_line(conf), json.dumps(record, sort_keys=True)])

    def summary(self, summary: AutotuneSummary) -> None:
        lines = ["", "== autotune summary =="]
        lines += [human_line(t) for t in summary.trials]
        lines += [confirmation_line(c) for c in summary.confirmations]
        if summary.winner is None:
            lines.append("winner: none — config.yaml left as planned")
        else:
            changes = ", ".join(f"{k}={json.dumps(v)}" for k, v in summary.winner_changes.items())
            lines.append(f"winner: trial {summary.winner} ({changes or 'the planned config as is'})")
        lines.append(f"stopped: {summary.stop_reason}")
        lines.append(f"launch: {summary.launch_line}")
        record = {"kind": "summary", **summary.model_dump(mode="json")}
        self._append(lines + [json.dumps(record, sort_keys=True)])

    def load_confirmations(self) -> dict[int | None, Confirmation]:
        """Finished confirmations by the trial they confirmed (a cancelled one runs again)."""
        found: dict[int | None, Confirmation] = {}
        if not self.path.exists():
            return found
        try:  # bounded like load(): a planted FIFO or a runaway file must not hang us
            raw = read_bytes(self.path, what="autotune log", limit=LOG_MAX_BYTES)
        except UsageError as exc:
            raise UsageError(f"{exc.message} (move it aside to start autotune afresh)") from None
        for line in raw.decode("utf-8", "replace").splitlines():
            if not line.startswith('{"') or '"kind": "confirmation"' not in line:
                continue
            try:
                record = loads_json(line, what="autotune log line")
                if not isinstance(record, dict):
                    continue
                record.pop("kind", None)
                conf = Confirmation.model_validate(record)
            except (UsageError, ValueError):
                continue
            if conf.outcome == "cancelled":
                found.pop(conf.trial, None)
            else:
                found[conf.trial] = conf
        return found

    def load(self) -> tuple[dict[int, TrialResult], AutotuneSummary | None]:
        """Finished trials by index (the last record wins) and the summary, if autotune ended."""
        trials: dict[int, TrialResult] = {}
        summary: AutotuneSummary | None = None
        if not self.path.exists():
            return trials, None
        try:  # our own log, but a planted FIFO or a runaway file must not hang or flood us
            raw = read_bytes(self.path, what="autotune log", limit=LOG_MAX_BYTES)
        except UsageError as exc:
            raise UsageError(f"{exc.message} (move it aside to start autotune afresh)") from None
        for line in raw.decode("utf-8", "replace").splitlines():
            if not line.startswith("{"):
                continue
            try:  # depth-limited: a hand-edited log line cannot recurse us to death
                record = loads_json(line, what="autotune log line")
            except UsageError:
                continue  # a line cut by a crash: that trial simply runs again
            if not isinstance(record, dict):
                continue  # hand-edited: not one of ours
            kind = record.pop("kind", None)
            try:
                if kind == "trial":
                    result = TrialResult.model_validate(record)
                    if result.outcome == "cancelled":
                        trials.pop(result.index, None)
                    else:
                        trials[result.index] = result
                elif kind == "summary":
                    summary = AutotuneSummary.model_validate(record)
            except ValueError:
                continue
        return trials, summary
