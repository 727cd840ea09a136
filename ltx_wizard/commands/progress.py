"""What `ltx-wizard autotune` shows on stderr while it works.

On a terminal: a live line per running trial (rich's Progress: the trial, its phase, the step
once the trainer has printed one, the time it has taken so far), with each finished trial's
usual line printed above it. Anywhere else (a pipe, a file, `--json`): plain lines, one per
event and one per phase change, never a control character. rich is imported only when the live
display is shown, so `--version` and `plan` never load it.
"""

from __future__ import annotations

import os
import sys
import time
from typing import TYPE_CHECKING, Callable, TextIO

from ltx_wizard.core.autotune.events import (
    AutotuneEvent,
    ConfirmationFinished,
    ConfirmationStarted,
    LogLine,
    TrialFinished,
    TrialPhase,
    TrialProgress,
    TrialStarted,
)
from ltx_wizard.core.autotune.sweep.finishing import SCHEDULE_PREFIX
from ltx_wizard.core.autotune.outputs.presenter import phase_line, phase_who, progress_line

if TYPE_CHECKING:  # rich is imported only when the live display runs
    from rich.progress import TaskID

Clock = Callable[[], float]
Key = tuple[str, int]  # ("trial", index) or ("confirm", the confirmed trial's index)
AFTER_TRAINING = ("saving", "finishing")  # autotune/trials/phase.py PHASE_LABEL's phases after the last step


def _key(event: TrialPhase) -> Key:
    return ("confirm" if event.confirmation else "trial", event.index)


def _schedule_line(event: AutotuneEvent) -> str | None:
    """The schedule's note on a batch change, printed before config.yaml is written."""
    if isinstance(event, LogLine) and event.text.startswith(SCHEDULE_PREFIX):
        return event.text
    return None


class PlainProgress:
    """Line by line: the events' usual lines, and `trial 1: loading the model (12 s)`."""

    def __init__(self, stream: TextIO | None = None, clock: Clock = time.monotonic) -> None:
        self._stream = stream  # None: sys.stderr as it is when a line is written
        self._clock = clock
        self._started: dict[Key, float] = {}

    def __call__(self, event: AutotuneEvent) -> None:
        if isinstance(event, TrialStarted):
            self._started[("trial", event.index)] = self._clock()
        elif isinstance(event, ConfirmationStarted):
            self._started[("confirm", event.trial or 0)] = self._clock()
        if isinstance(event, TrialPhase):
            if event.phase not in ("starting", "ended"):  # its first and last lines say so
                started = self._started.get(_key(event), self._clock())
                self._write(phase_line(event, self._clock() - started))
            return
        line = _schedule_line(event) or progress_line(event)
        if line is not None:
            self._write(line)

    def _write(self, line: str) -> None:
        print(line, file=self._stream or sys.stderr, flush=True)

    def close(self) -> None:
        pass


class LiveProgress:
    """rich's Progress on stderr: a row per running trial, gone when the trial ends."""

    def __init__(self, console=None, clock: Clock = time.monotonic, auto_refresh: bool = True) -> None:
        from rich.console import Console
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
        from rich.table import Column

        self._progress = Progress(
            SpinnerColumn(),
            TextColumn(
                "{task.description}", markup=False, table_column=Column(no_wrap=True, overflow="ellipsis")
            ),
            TextColumn("·", style="dim"),
            TextColumn("{task.fields[what]}", markup=False, style="cyan"),
            TimeElapsedColumn(),
            console=console or Console(stderr=True),
            get_time=clock,
            auto_refresh=auto_refresh,
            refresh_per_second=4,
            transient=True,  # stopped, it leaves only the printed lines
            redirect_stdout=False,  # stdout is the report's (and --json's), never the display's
        )
        self._tasks: dict[Key, TaskID] = {}
        self._phase: dict[Key, str] = {}
        self._step: dict[Key, str] = {}
        # runs under one row: side by side, two guesses can carry the same trial number
        self._runs: dict[Key, int] = {}
        self._progress.start()

    def __call__(self, event: AutotuneEvent) -> None:
        if isinstance(event, TrialStarted):
            self._add(("trial", event.index), f"trial {event.index}  {event.change}")
        elif isinstance(event, ConfirmationStarted):
            gpus = f"{event.gpus} GPU{'s' if event.gpus > 1 else ''}"
            self._add(("confirm", event.trial or 0), f"confirm trial {event.trial} ({gpus})")
        elif isinstance(event, TrialPhase) and event.phase == "dropped":
            self._print(f"{phase_who(event)}: {event.label}")  # its row went with its "ended"
        elif isinstance(event, TrialPhase) and event.phase == "ended":
            self._runs[_key(event)] = self._runs.get(_key(event), 1) - 1
            if self._runs[_key(event)] <= 0:  # also a guess the side-by-side pool dropped
                self._remove(_key(event))
        elif isinstance(event, TrialPhase):
            self._phase[_key(event)] = event.label
            if event.phase in AFTER_TRAINING:  # the last step line says nothing about these
                self._step.pop(_key(event), None)
            self._show(_key(event))
        elif isinstance(event, TrialProgress):
            # a confirmation reports its steps under the confirmed trial's index
            key = (
                ("confirm", event.index)
                if ("confirm", event.index) in self._tasks
                else ("trial", event.index)
            )
            rate = "" if event.step_time_s is None else f" ({event.step_time_s:.2f} s/step)"
            self._step[key] = f"step {event.step}/{event.total}{rate}"
            self._show(key)
        else:
            if isinstance(event, TrialFinished):
                self._remove(("trial", event.result.index))
            elif isinstance(event, ConfirmationFinished):
                self._remove(("confirm", event.confirmation.trial or 0))
            line = _schedule_line(event) or progress_line(event)
            if line is not None:
                self._print(line)

    def _add(self, key: Key, description: str) -> None:
        self._runs[key] = self._runs.get(key, 0) + 1
        if key in self._tasks:
            self._progress.update(self._tasks[key], description=description)
            return
        self._phase[key] = "starting"
        self._tasks[key] = self._progress.add_task(description, total=None, what="starting")
        self._progress.refresh()

    def _show(self, key: Key) -> None:
        task = self._tasks.get(key)
        if task is not None:
            what = ", ".join(t for t in (self._phase.get(key), self._step.get(key)) if t)
            self._progress.update(task, what=what)

    def _remove(self, key: Key) -> None:
        task = self._tasks.pop(key, None)
        self._runs.pop(key, None)
        self._phase.pop(key, None)
        self._step.pop(key, None)
        if task is not None:
            self._progress.remove_task(task)
            self._progress.refresh()  # before a line is printed above the rows: not a stale row

    def _print(self, line: str) -> None:
        from rich.text import Text

        # soft_wrap: a long result stays one line to copy (the terminal wraps it)
        self._progress.console.print(Text(line), soft_wrap=True)

    def close(self) -> None:
        self._progress.stop()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or stand-in stream
        return False


def autotune_progress(json_mode: bool) -> PlainProgress | LiveProgress:
    """Live on a terminal (stdout and stderr both, and not --json); plain lines otherwise."""
    if json_mode or os.environ.get("TERM") == "dumb":
        return PlainProgress()
    if _is_terminal(sys.stdout) and _is_terminal(sys.stderr):
        return LiveProgress()
    return PlainProgress()
