"""What the wizard ran: every child started through spawn.py (uv, git, accelerate, the trainer's
scripts, the pipelines, the captioner server, compare's programs) is recorded as JSON lines in its
run folder's `logs/commands.jsonl`, so that the user can rerun any step by hand.

Two records per child, joined by `id`: `start` (argv, cwd, the environment entries the wizard set
or changed, its pid) when it starts, `end` (exit code, or the signal) once it has been reaped. Each
record is one line written by one write() on a descriptor opened with O_APPEND: two writers (the
wizard and its detached evaluation) never interleave, and a crash tears at most the last line.

Where a record goes is asked of the resolver a session installs (`install`): the TUI's answers its
current run folder, a command's the RUN it was given; core/io/commands_file.py makes the log (this
package sits below the run folder's table). With no resolver (a library call, a test), nothing is
recorded. A child started while the session has no run folder yet (setup's uv and git before the
plan) is kept in memory and written into the first run folder the session opens.

Left out, as no step of the run: the wizard's quick looks that do not go through spawn.py
(ffprobe on a clip, nvidia-smi, the terminal's graphics, a video player the user asked for) and
core/proc's own watchdog (reaper.py). tests/journeys/test_journey_cmdlog.py holds a CLI run to
this, against every process start an audit hook sees.
"""

from __future__ import annotations

import os
import re
import threading
import time
import uuid
from pathlib import Path
from signal import Signals
from typing import Callable, Literal, Mapping, Sequence

import msgspec

from ltx_wizard.core.proc.tags import OWNER_ENV, TAG_ENV

Event = Literal["start", "end"]
# Values of names like these are never written: the rendered line reads them from the user's shell.
_SECRET = re.compile(r"TOKEN|KEY|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH", re.IGNORECASE)
# a password in a URL (`git clone https://user:TOKEN@host/...`): never written (the line then
# asks for it where it stands, as `***`)
_URL_PASSWORD = re.compile(r"(://[^/@:\s]+):[^/@\s]+@")
_OWN = {TAG_ENV, OWNER_ENV}  # the service's own tags: a rerun by hand must not look like our child
_PENDING_MAX = 500


class CommandRecord(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """One line of logs/commands.jsonl (declared in core/io/commands_file.py)."""

    version: int
    id: str
    event: Event
    at: float  # time.time()
    argv: tuple[str, ...] = ()
    cwd: str = ""
    env: dict[str, str] = {}  # set or changed by the wizard; a masked name's value is ""
    masked: tuple[str, ...] = ()  # names whose values were not written (secrets)
    unset: tuple[str, ...] = ()  # names the wizard took out of its own environment
    run: str = ""  # the run folder
    pid: int = 0
    detached: bool = False  # outlives the wizard (a training): its end may never be seen
    exit_code: int | None = None  # end: the exit status, None when a signal ended it
    signal: str | None = None  # end: the signal's name (SIGTERM)


def env_changes(
    child: Mapping[str, str], base: Mapping[str, str] | None = None
) -> tuple[dict[str, str], tuple[str, ...], tuple[str, ...]]:
    """(what the child's environment sets or changes from `base` (ours), secrets masked; the
    masked names; the names it drops)."""
    base = os.environ if base is None else base
    env: dict[str, str] = {}
    masked: list[str] = []
    for name in sorted(child):
        if name in _OWN or base.get(name) == child[name]:
            continue
        secret = bool(_SECRET.search(name))
        env[name] = "" if secret else child[name]
        if secret:
            masked.append(name)
    unset = tuple(sorted(name for name in base if name not in child and name not in _OWN))
    return env, tuple(masked), unset


class CommandLog:
    """A run folder's commands.jsonl, made by core/io/commands_file.py (which checks the path
    and encodes through the file's declaration)."""

    def __init__(self, path: Path, run: str, encode: Callable[[CommandRecord], str]) -> None:
        self.path, self.run, self.encode = path, run, encode
        self.problem: str | None = None  # the last write that failed (a full disk): said, not raised

    def write(self, records: Sequence[CommandRecord]) -> None:
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            fd = os.open(self.path, flags, 0o644)
        except OSError as exc:
            self.problem = f"cannot write {self.path}: {exc.strerror or exc}"
            return
        try:
            for record in records:
                data = (self.encode(record) + "\n").encode("utf-8", "surrogateescape")
                while data:  # one write() a line; a regular file takes it whole
                    data = data[os.write(fd, data) :]
        except OSError as exc:
            self.problem = f"cannot write {self.path}: {exc.strerror or exc}"
        finally:
            os.close(fd)


Resolver = Callable[[], "CommandLog | None"]
_lock = threading.RLock()  # re-entered by a signal handler that reaps a child (spawn.py)
_resolver: list[Resolver] = []
_pending: list[CommandRecord] = []
_where: dict[str, CommandLog] = {}  # a child's id -> the log its start went to


def install(resolver: Resolver) -> Callable[[], None]:
    """Record children from now on where `resolver` says; returns the undo (which drops what is
    still pending: it belongs to no run)."""
    with _lock:
        previous = list(_resolver)
        _resolver[:] = [resolver]

    def restore() -> None:
        with _lock:
            _resolver[:] = previous
            _pending.clear()

    return restore


def _current() -> CommandLog | None:
    try:
        return _resolver[0]() if _resolver else None
    except Exception:  # noqa: BLE001 - a run folder gone meanwhile: the record waits, the child runs
        return None


def _emit(record: CommandRecord, bound: CommandLog | None) -> CommandLog | None:
    with _lock:
        if not _resolver and bound is None:
            return None
        log = bound or _current()
        if log is None:
            _pending[:] = [*_pending, record][-_PENDING_MAX:]
            return None
        batch = [_in_run(r, log.run) for r in (*_pending, record)]
        _pending.clear()
        log.write(batch)
        return log


def _in_run(record: CommandRecord, run: str) -> CommandRecord:
    return msgspec.structs.replace(record, run=run) if record.event == "start" else record


def started(
    argv: Sequence[str], *, cwd: object, env: Mapping[str, str], pid: int, detached: bool = False
) -> str | None:
    """Record a child that has just started; its id for `ended`, None when nothing records."""
    if not _resolver:
        return None
    changed, masked, unset = env_changes(env)
    where = os.path.abspath(os.fspath(cwd)) if isinstance(cwd, (str, os.PathLike)) else os.getcwd()
    command_id = uuid.uuid4().hex[:12]
    record = CommandRecord(
        version=1,
        id=command_id,
        event="start",
        at=time.time(),
        argv=tuple(_URL_PASSWORD.sub(r"\1:***@", str(a)) for a in argv),
        cwd=str(where),
        env=changed,
        masked=masked,
        unset=unset,
        pid=pid,
        detached=detached,
    )
    with _lock:
        log = _emit(record, None)
        if log is not None:
            _where[command_id] = log
    return command_id


def ended(command_id: str | None, returncode: int | None) -> None:
    """Record the end of the child `started` named (its exit code, or the signal that ended it)."""
    if command_id is None or returncode is None:
        return
    code, sig = (returncode, None) if returncode >= 0 else (None, _signal_name(-returncode))
    record = CommandRecord(version=1, id=command_id, event="end", at=time.time(), exit_code=code, signal=sig)
    with _lock:
        _emit(record, _where.pop(command_id, None))


def _signal_name(number: int) -> str:
    try:
        return Signals(number).name
    except ValueError:
        return f"signal {number}"
