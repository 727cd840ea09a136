"""Run one setup step (git, uv, pip) as a process of its own: no shell, its output kept in the
setup log as it arrives (each step headed by its command), fed to the step's progress reader, and
handed to the caller line by line. It is a child of core/proc (its own session, tagged,
registered): a cancel, or a signal to the wizard, stops it and all it started by the one rule.
A step silent for QUIET_S says what it waits on (its address, or uv's index or a build), in the
log and to the caller, so a stalled clone or sync never looks like a hung wizard.
"""

from __future__ import annotations

import os
import re
import select
import subprocess
import time
from pathlib import Path
from typing import IO, Callable, Iterator, Mapping

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.base.records import record
from ltx_wizard.core.base.text_safety import clean_text
from ltx_wizard.core.proc.spawn import Spawned, spawn
from ltx_wizard.core.setup.setup_progress import StepProgress, progress_for


@record
class Step:
    argv: tuple[str, ...]
    cwd: Path | None = None
    label: str = ""  # what the user reads, e.g. "uv sync in ~/LTX-2"
    progress: str = "plain"  # "uv-sync", "git" or "plain" (setup_progress.py)


@record
class StepResult:
    returncode: int
    tail: tuple[str, ...]  # the last lines, for a failure's one-line reason
    cancelled: bool = False

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.cancelled

    def reason(self) -> str:
        """The exit and the last line said; with the address it was fetching when that line does
        not name it (uv ends a network failure on its innermost cause, the DNS or TLS error:
        `error: Failed to fetch: `URL`` and `error sending request for url (URL)` come before)."""
        last = next((t.strip() for t in reversed(self.tail) if t.strip()), "")
        said = f"exit {self.returncode}" + (f": {last[:200]}" if last else "")
        if not last or _URL.search(last):
            return said
        url = next((m.group(0) for t in reversed(self.tail) if (m := _URL.search(t))), None)
        return said + (f" (fetching {url})" if url else "")


# An address in a tool's output: up to a space, a quote or the bracket around it.
_URL = re.compile(r"[a-z][a-z0-9+.-]*://[^\s`'\"()<>]+")
_SCP = re.compile(r"[\w.-]+@[\w.-]+:\S+")  # git@host:path
QUIET_S = 30.0  # git and uv print progress every second while data flows


def waiting_on(step: Step) -> str:
    """What a silent step waits on, in the user's words."""
    address = next((a for a in step.argv if _URL.match(a) or _SCP.fullmatch(a)), None)
    if address is not None:
        return f"the network ({address})"
    if step.progress == "uv-sync":
        return "the package index or a package build"
    return "its own work"


def _quiet_note(step: Step, quiet_s: float) -> str:
    label = step.label or shown(step.argv)
    return f"(no output from {label} for {quiet_s:.0f} s: it waits on {waiting_on(step)}; Ctrl-C stops it)"


OnLine = Callable[[StepProgress, str], None]


def shown(argv: tuple[str, ...]) -> str:
    """A command as the user could type it (quoted where needed)."""
    import shlex

    return " ".join(shlex.quote(a) for a in argv)


def _lines(step: Step, child: Spawned, out: IO[str], cancelled: Callable[[], bool]) -> Iterator[str]:
    """The process's output lines as they arrive (also written to `out`); stops the process and
    returns when `cancelled()` turns true, checked at least twice a second. A note for each
    QUIET_S without output."""
    assert child.popen.stdout is not None
    fd, buffer = child.popen.stdout.fileno(), b""
    heard = time.monotonic()
    while True:
        if cancelled():
            child.stop_blocking()
            return
        ready, _, _ = select.select([fd], [], [], min(0.5, QUIET_S))
        if not ready:
            if time.monotonic() - heard >= QUIET_S:
                note = clean_text(_quiet_note(step, time.monotonic() - heard))
                out.write(note + "\n")
                out.flush()
                heard = time.monotonic()
                yield note
            continue
        heard = time.monotonic()
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        out.write(chunk.decode("utf-8", "replace"))
        out.flush()
        *lines, buffer = (buffer + chunk).replace(b"\r", b"\n").split(b"\n")
        for raw in lines:
            yield clean_text(raw.decode("utf-8", "replace"))
    if buffer.strip():
        yield clean_text(buffer.decode("utf-8", "replace"))


def run_step(
    step: Step,
    log: Path,
    *,
    env: Mapping[str, str] | None = None,
    on_line: OnLine | None = None,
    cancelled: Callable[[], bool] = lambda: False,
) -> StepResult:
    """Run `step`, appending its command and output to `log`; never through a shell."""
    progress = progress_for(step.progress)
    tail: list[str] = []
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "a", encoding="utf-8", errors="replace") as out:
        out.write(f"\n$ {shown(step.argv)}" + (f"    (in {step.cwd})" if step.cwd else "") + "\n")
        out.flush()
        try:
            child = spawn(
                step.argv,
                env=dict(env or os.environ),
                cwd=step.cwd,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
            )
        except WizardError as exc:
            out.write(f"{exc.message}\n")
            return StepResult(returncode=127, tail=(exc.message,))
        with child.popen:
            for line in _lines(step, child, out, cancelled):
                progress.feed(line)
                tail[:] = (tail + [line])[-20:]
                if on_line is not None:
                    on_line(progress, line)
            code = child.popen.wait()
            child.stop_blocking()  # the step is over: nothing it started runs on
        if cancelled():
            out.write("\n(cancelled)\n")
            return StepResult(returncode=code, tail=tuple(tail), cancelled=True)
        out.write(f"(exit {code}, {time.strftime('%H:%M:%S')})\n")
    return StepResult(returncode=code, tail=tuple(tail))
