"""Why a run failed, in one line a user can act on, picked from the line parser's records.

The parser hands over whole records (a config error block, a traceback's exception line, an OOM
line); this module only chooses among them and trims them. What the real trainer prints:
- `scripts/train.py main()`: a config the schema refuses -> `typer.echo("Error: Invalid
  configuration data: {e}")` on stdout, where `e` is pydantic's ValidationError: a header
  (`N validation error(s) for LtxTrainerConfig`), then per error an unindented location line
  (`optimization.batch_sizee`; absent for a model-level validator), an indented message line
  ending in `[type=..., input_value=..., input_type=...]`, and a `For further information` line.
- a crash: Python's traceback, whose exception line (`ValueError: ...`) is the cause. Under
  `accelerate launch` the launcher adds its own traceback afterwards (ChildFailedError or
  CalledProcessError), which only says that a rank failed, so a rank's own exception wins.
- an OOM: torch's `CUDA out of memory. Tried to allocate X. GPU N has a total capacity of ...`.
"""

from __future__ import annotations

import re

from ltx_wizard.core.trainer_output import line_events as ev
from ltx_wizard.core.trainer_output.grammar import CONFIG_ERROR

MAX_CHARS = 300  # a reason is one line in autotune.log and the TUI; the log file has the rest
_HEADER = re.compile(r"^(\d{1,9}) validation errors? for \w+")
_PYDANTIC_TAIL = re.compile(r"\s*\[type=[^\]]*(\]|$).*$")
_LAUNCHER = ("ChildFailedError", "CalledProcessError")
_OOM_STARTS = ("CUDA out of memory", "CUDA error: out of memory", "OutOfMemoryError")
_OOM_NOISE = ("Of the allocated memory", "If reserved but unallocated", "See documentation")


def clip(text: str, limit: int = MAX_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def config_error_cause(text: str) -> str:
    """`Error: Invalid configuration data: 2 validation errors ...` -> `invalid config: a.b: msg; …`."""
    body = text.split(CONFIG_ERROR, 1)[-1].strip()
    lines = [line.rstrip() for line in body.splitlines() if line.strip()]
    header = _HEADER.match(lines[0]) if lines else None
    if header is None:
        return clip(f"invalid config: {body}")  # not pydantic's layout: keep what was said
    errors: list[str] = []
    location: str | None = None
    for line in lines[1:]:
        if not line.startswith(" "):  # an error's location (dotted field path)
            location = line.strip()
        elif not line.startswith("    "):  # the message line, two spaces in
            message = _PYDANTIC_TAIL.sub("", line.strip())
            errors.append(f"{location}: {message}" if location else message)
            location = None
    if not errors:
        return clip(f"invalid config: {lines[0]}")
    count = int(header.group(1))
    more = f" (+{count - len(errors)} more)" if count > len(errors) else ""
    return clip("invalid config: " + "; ".join(errors) + more)


def oom_cause(line: str) -> str:
    """torch's OOM message cut to the allocation and the device's state (no advice paragraph)."""
    starts = [line.find(word) for word in _OOM_STARTS if word in line]
    text = line[starts[0] :] if starts else line  # torch's own words, without the exception type
    for noise in _OOM_NOISE:
        text = text.split(noise, 1)[0]
    return clip(text.strip())


class FailureCause:
    """Feed every parser record of one run (a trial, a training attempt); ask for the cause once
    it has ended."""

    def __init__(self) -> None:
        self.config: str | None = None
        self.missing_config: str | None = None
        self.stop_iteration: str | None = None
        self.exceptions: list[str] = []  # traceback exception lines, in arrival order
        self.ooms: list[str] = []

    def feed(self, event: ev.TrainerEvent) -> None:
        if isinstance(event, ev.ConfigError) and self.config is None:
            self.config = config_error_cause(event.text)
        elif isinstance(event, ev.MissingConfig) and self.missing_config is None:
            self.missing_config = f"Error: Configuration file {event.path} does not exist."
        elif isinstance(event, ev.StopIterationError) and self.stop_iteration is None:
            # mirrors ltx_trainer/trainer.py LtxvTrainer._init_dataloader: DataLoader(drop_last=True)
            self.stop_iteration = (
                "StopIteration: the trial data holds fewer samples than batch x "
                "GPUs (the trainer's loader drops the last incomplete batch)"
            )
        elif isinstance(event, ev.Traceback) and event.last_line:
            self.exceptions.append(event.last_line)
        elif isinstance(event, ev.OomError):
            self.ooms.append(event.line)

    def crash(self) -> str | None:
        """The best explanation of a non-zero exit, or None when the output held none."""
        if self.config or self.missing_config or self.stop_iteration:
            return self.config or self.missing_config or self.stop_iteration
        own = [e for e in self.exceptions if not any(w in e for w in _LAUNCHER)]
        found = own or self.exceptions
        return clip(found[0]) if found else None

    def oom(self) -> str:
        """The allocation line when one arrived (any rank), else the first OOM line."""
        if not self.ooms:
            return "CUDA out of memory"
        best = next((line for line in self.ooms if "Tried to allocate" in line), self.ooms[0])
        return oom_cause(best)
