"""logs/commands.jsonl, the commands the wizard ran for a run (core/proc/command_log.py records
them): its declaration, the log a session records into, and the file read back as commands, each
rendered as the shell line that reruns it by hand (`cd DIR && env K=V ... argv`, quoted by shlex).

A session records into the run folder it works in: `record_into(get_run)` installs the resolver
(the TUI passes its current run folder, a command the RUN it was given).
"""

from __future__ import annotations

import re
import shlex
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.io import run_folder
from ltx_wizard.core.io.bounded import read_bytes
from ltx_wizard.core.io.run_codec import declare
from ltx_wizard.core.io.safe_fs import check_inside
from ltx_wizard.core.proc import command_log
from ltx_wizard.core.proc.command_log import CommandLog, CommandRecord

COMMANDS_FILE = declare(run_folder.COMMANDS_LOG, CommandRecord)
MAX_BYTES = 16 * 2**20  # ~15,000 commands: far more than a run starts


def log_for(run_dir: Path) -> CommandLog:
    """The run folder's command log (its logs/ folder made, no planted link followed)."""
    run = Path(run_dir).absolute()
    path = check_inside(run, run_folder.COMMANDS_LOG.path(run))
    return CommandLog(path, str(run), lambda record: COMMANDS_FILE.encode(record, indent=False))


def record_into(get_run: Callable[[], Path | None]) -> Callable[[], None]:
    """From now on every child is recorded in the run folder `get_run()` names when it starts
    (kept in memory while it names none); returns the undo."""
    logs: dict[Path, CommandLog] = {}

    def resolve() -> CommandLog | None:
        run = get_run()
        if run is None or not (
            run_folder.CONFIG.path(run).exists() or run_folder.LOGS_DIR.path(run).is_dir()
        ):
            return None
        key = Path(run).absolute()
        if key not in logs:
            logs[key] = log_for(key)
        return logs[key]

    return command_log.install(resolve)


@dataclass(frozen=True)
class Command:
    """One child: its start, and its end when the wizard saw it reaped."""

    start: CommandRecord
    end: CommandRecord | None

    @property
    def line(self) -> str:
        return shell_line(self.start)

    @property
    def outcome(self) -> str:
        """`exit 0`, `exit 2`, `SIGTERM`, or why there is no end."""
        if self.end is None:
            return "no end seen (detached)" if self.start.detached else "running, or the wizard left first"
        if self.end.signal is not None:
            return self.end.signal
        return f"exit {self.end.exit_code}"

    @property
    def ok(self) -> bool | None:
        """True: exit 0; False: another exit or a signal; None: no end."""
        return None if self.end is None else self.end.exit_code == 0

    @property
    def when(self) -> str:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.start.at))

    @property
    def took(self) -> str:
        return "" if self.end is None else f"{self.end.at - self.start.at:.1f} s"


# what a terminal would act on or a line would split at (text_safety.py's controls, bidi included)
_UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def quote(word: str) -> str:
    """shlex.quote, or for a word with a control character bash's $'...' with that character
    escaped: the line stays one safe line on a terminal and runs as printed."""
    if not _UNSAFE.search(word):
        return shlex.quote(word)
    body = word.replace("\\", "\\\\").replace("'", "\\'")
    return "$'" + _UNSAFE.sub(_escape, body) + "'"


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}"


def shell_line(start: CommandRecord) -> str:
    """`cd DIR && env [-u NAME] K=V ... argv`: runs as printed; a masked value is read from the
    user's own environment (`HF_TOKEN="$HF_TOKEN"`)."""
    env: list[str] = []
    for name in start.unset:
        env += ["-u", quote(name)]
    for name, value in start.env.items():
        if name in start.masked:
            env.append(f'{name}="${name}"' if name.isidentifier() else quote(f"{name}="))
        else:
            env.append(quote(f"{name}={value}"))
    words = ["cd", quote(start.cwd), "&&"] + (["env", *env] if env else [])
    return " ".join(words + [quote(a) for a in start.argv])


def read_commands(run_dir: Path) -> list[Command]:
    """The run's commands, oldest first; none when it has no log. A torn line (the wizard killed
    mid-write) is skipped; a line of another shape is refused, naming the file."""
    path = run_folder.COMMANDS_LOG.path(run_dir)
    if not path.exists():
        return []
    starts: dict[str, CommandRecord] = {}
    ends: dict[str, CommandRecord] = {}
    lines = read_bytes(path, what=run_folder.COMMANDS_LOG.what, limit=MAX_BYTES).split(b"\n")
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = COMMANDS_FILE.decode(line, path)
        except WizardError:
            if number >= len(lines) - 1:  # the last line, torn by a crash
                continue
            raise
        (starts if record.event == "start" else ends)[record.id] = record
    return [Command(start, ends.get(key)) for key, start in starts.items()]
