"""Incremental parser for the trainer's combined stdout/stderr, one physical line at a time.

The trainer logs through rich's RichHandler. With stdout piped each record is laid out as
`LEVEL    message ... source.py:LINE` (level column 8 wide plus a space), padded to the console
width and word-wrapped at 80 columns unless COLUMNS is wider: continuation lines are indented to
the message column and the source suffix sits on the first line only. A word longer than the
message column is folded mid-word; a folded piece fills the column exactly and holds no space,
which is how the parser tells a fold (join with nothing) from a word wrap (join with a space).
Lines without that layout (plain prints, stderr, tracebacks) are handled one line at a time.

Events carry `t`, the arrival time of the first physical line of what they were parsed from, so
that step time can be measured from the arrival of step lines (the printed Time/Step is one
step's duration only).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ltx_wizard.core.base.text_cells import cell_width
from ltx_wizard.core.trainer_output import grammar as g
from ltx_wizard.core.trainer_output.line_events import (
    CheckpointSaved,
    ConfigError,
    MissingConfig,
    NanLoss,
    OomError,
    Statistics,
    StepEvent,
    StopIterationError,
    Traceback,
    TrainerEvent,
    TrainerPhase,
    ValidationSaved,
)
from ltx_wizard.core.trainer_output.stages import message_phase

MAX_RECORD_CHARS = 16 * 1024  # a record's text past this is not kept (nor scanned)
MAX_CONFIG_LINES = 200  # lines kept of a configuration error's block
_WINDOW = 1024  # how far back from its end a growing record is rescanned
_OVERLAP = 64  # a hint split over two physical lines is still seen


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return math.nan


def _join(text: str, addition: str) -> str:
    """`" ".join((text + addition).split())` for an already normalised `text`, in O(len(addition))
    when `text` is reused (strings are immutable, so the copy is the only cost left)."""
    words = addition.split()
    if not words:
        return text
    if not text:
        return " ".join(words)
    return text + (" " if addition[0].isspace() else "") + " ".join(words)


def _hinted(text: str, hints: tuple[str, ...] = ()) -> bool:
    """Cheap pre-filter: can `text` hold any line-shaped event (or one of `hints`) at all?"""
    for hint in hints or g.HINTS:  # a plain loop: twice as fast as any() over a generator
        if hint in text:
            return True
    return False


@dataclass
class _Record:
    """One rich log record being reassembled from its physical lines.

    The text is built as lines arrive and capped at MAX_RECORD_CHARS: rich tables and wrapped
    tracebacks can run to thousands of lines, and rejoining and rescanning all of it per line made
    parsing quadratic. While the record grows only its recent tail is scanned, and only once a
    hint of an event shows up there; the whole (capped) text is scanned once when it closes.
    """

    t: float
    torch_rank: int | None
    indent: int
    msg_width: int | None  # None when the layout gives no clue (no source suffix)
    text: str
    last_piece: str
    prefix: str = ""
    hot_from: int | None = None  # where in `text` a hint was seen; scans start there
    done: set[str] = field(default_factory=set)

    def append(self, piece: str) -> int | None:
        """Add one continuation piece; the offset the new text starts at, None if nothing added."""
        prev, self.last_piece = self.last_piece, piece
        if len(self.text) >= MAX_RECORD_CHARS:
            return None
        folded = self.msg_width is not None and " " not in prev.strip() and cell_width(prev) >= self.msg_width
        before = len(self.text)
        self.text = _join(self.text, piece if folded else " " + piece)[:MAX_RECORD_CHARS]
        return before if len(self.text) > before else None


@dataclass
class _Tb:
    """A Python traceback being read (per torch rank, since ranks interleave)."""

    t: float
    first_line: str
    last_line: str = ""
    seen_exception: bool = False
    done: set[str] = field(default_factory=set)


class TrainerLogParser:
    """Feed physical lines in arrival order; get events as soon as they are certain."""

    def __init__(self) -> None:
        self._record: _Record | None = None
        self._tbs: dict[int | None, _Tb] = {}
        self._stats: dict[str, Any] | None = None  # Statistics' fields as read so far
        self._config: tuple[float, list[str]] | None = None

    def feed(self, line: str, t: float) -> list[TrainerEvent]:
        line = line.rstrip("\r\n")
        if "\x1b" in line:
            line = g.ANSI.sub("", line)
        if "\r" in line:
            line = line.rsplit("\r", 1)[-1]
        torch_rank = None
        if line.startswith("[rank"):
            m = g.TORCH_RANK.match(line)
            if m:
                torch_rank, line = int(m.group(1)), line[m.end() :]
        events: list[TrainerEvent] = []
        if self._traceback_line(line, t, torch_rank, events):
            return events
        m = g.LEVEL.match(line)
        if m and (m.end() - m.start(2) >= g.LEVEL_WIDTH or not m.group(3)):
            events += self._close_record()
            events += self._flush_config()
            self._open_record(line, m.start(2) + g.LEVEL_WIDTH, t, torch_rank, events)
            return events
        rec = self._record
        if rec and rec.torch_rank == torch_rank and line.startswith(rec.prefix):
            start = rec.append(line[rec.indent :].rstrip())
            if start is not None:
                events += self._scan_tail(rec, start)
            return events
        if not line.strip():
            return events
        events += self._close_record()
        if self._config is not None:
            if len(self._config[1]) < MAX_CONFIG_LINES:
                self._config[1].append(line.rstrip())
            return events
        events += self._unit(line.strip(), t, torch_rank)
        return events

    def finish(self) -> list[TrainerEvent]:
        """End of output: emit everything still pending."""
        events = self._close_record()
        events += self._flush_config()
        events += self._flush_stats()
        for key in list(self._tbs):
            events.append(self._end_traceback(key))
        return events

    # -- rich records -------------------------------------------------------------------------

    def _open_record(
        self, line: str, indent: int, t: float, rank: int | None, events: list[TrainerEvent]
    ) -> None:
        raw = line.rstrip()
        content = raw[indent:]
        msg_width = None
        tail = max(0, len(content) - 200)  # a source suffix is short: never search a long line
        m = g.SUFFIX.search(content, tail) if ".py:" in content[tail:] else None
        if m:
            msg_width = cell_width(raw) - indent - 1 - len(m.group(1))
            content = content[: m.start()]
        elif len(line) > indent and line != raw:
            msg_width = cell_width(line) - indent  # padded, no path column
        first = content.rstrip()
        phase = message_phase(first)  # a stage's line is short: its start is on the first line
        if phase is not None:
            said = g.message_rank(first)
            events.append(TrainerPhase(t=t, phase=phase, rank=rank if said is None else said))
        rec = _Record(
            t, rank, indent, msg_width, _join("", first)[:MAX_RECORD_CHARS], first, prefix=" " * indent
        )
        self._record = rec
        if _hinted(rec.text):
            rec.hot_from = 0
            events += self._scan(rec.text, t, rank, rec.done, final=False)

    def _scan_tail(self, rec: _Record, start: int) -> list[TrainerEvent]:
        """After text was appended at `start`: scan the recent tail if an event may be in it."""
        text = rec.text
        if rec.hot_from is not None and len(text) - rec.hot_from > _WINDOW:
            rec.hot_from = None  # an event's text is short: whatever was hinted there is settled
        if rec.hot_from is None:
            seen_from = max(0, start - _OVERLAP)
            if not _hinted(text[seen_from:]):
                return []
            rec.hot_from = seen_from
        if rec.hot_from <= _OVERLAP:  # near the start, where a `[rank N]` prefix sits
            return self._scan(text, rec.t, rec.torch_rank, rec.done, final=False)
        rank = g.message_rank(text[:_OVERLAP])
        return self._scan(
            text[rec.hot_from :],
            rec.t,
            rec.torch_rank if rank is None else rank,
            rec.done,
            final=False,
            ranked=True,
        )

    def _close_record(self) -> list[TrainerEvent]:
        rec, self._record = self._record, None
        if rec is None:
            return []
        events = self._scan(rec.text, rec.t, rec.torch_rank, rec.done, final=True)
        return events + self._unit(rec.text, rec.t, rec.torch_rank, scanned=True)

    def _scan(
        self, text: str, t: float, rank: int | None, done: set[str], final: bool, ranked: bool = False
    ) -> list[TrainerEvent]:
        """Line-shaped events in one message; `final` once nothing more can be appended.
        `ranked`: `text` is a tail, the message's rank prefix already applied to `rank`."""
        if not _hinted(text):
            return []
        if not ranked and "[rank" in text[:16]:
            m = g.MSG_RANK.match(text, 0) or g.MSG_RANK.search(text, 0, 16)
            if m:
                rank, text = int(m.group(1)), text[: m.start()] + text[m.end() :]
        events: list[TrainerEvent] = []
        # Each pattern runs only when its own literal is there and its event is still to come.
        m = g.STEP.search(text) if "step" not in done and "Step " in text else None
        if m and (final or m.end() == len(text)):
            done.add("step")
            step, loss = int(m.group(1)), _number(m.group(3))
            events.append(
                StepEvent(
                    t=t,
                    step=step,
                    total=int(m.group(2)),
                    loss=loss,
                    lr=_number(m.group(4)),
                    time_per_step_s=_number(m.group(5)),
                    rank=rank,
                    total_time=m.group(6),
                )
            )
            if math.isnan(loss):
                events.append(NanLoss(t=t, step=step, rank=rank))
        m = g.VALIDATION.search(text) if "Validation samples" in text else None
        if m and "validation" not in done:
            done.add("validation")
            events.append(ValidationSaved(t=t, step=int(m.group(1)), rank=rank))
        m = g.CHECKPOINT.search(text) if "eights for step" in text else None
        complete = m and m.end() == len(text) and m.group(2).endswith(".safetensors")
        if m and "checkpoint" not in done and (final or complete):
            done.add("checkpoint")
            events.append(CheckpointSaved(t=t, step=int(m.group(1)), path=m.group(2), rank=rank))
        m = g.MISSING_CONFIG.search(text) if "Configuration file" in text else None
        if m and "missing" not in done and (final or text.endswith(".")):
            done.add("missing")
            events.append(MissingConfig(t=t, path=m.group(1)))
        m = g.OOM.search(text) if "oom" not in done and _hinted(text, g.OOM_HINTS) else None
        if m:
            done.add("oom")
            events.append(OomError(t=t, line=text, rank=rank))
        return events

    def _unit(self, text: str, t: float, rank: int | None, scanned: bool = False) -> list[TrainerEvent]:
        """A complete logical line: block-shaped events (statistics, config errors)."""
        events = [] if scanned else self._scan(text, t, rank, set(), final=True)
        if self._stats is not None:
            if self._absorb_stats(text):
                if "global_batch" in self._stats:
                    events += self._flush_stats()
                return events
            events += self._flush_stats()
        if g.STATS_HEADER in text:
            self._stats = {"t": t}
            self._absorb_stats(text)
            if "global_batch" in self._stats:
                events += self._flush_stats()
        elif g.CONFIG_ERROR in text:
            self._config = (t, [text[text.index(g.CONFIG_ERROR) :]])
        return events

    def _absorb_stats(self, text: str) -> bool:
        assert self._stats is not None  # a statistics block is open
        found = False
        for key, pattern in g.STATS.items():
            m = pattern.search(text)
            if m:
                try:  # `[\d.]+` also matches "1.2.3": such a figure is not kept
                    self._stats[key] = float(m.group(1)) if "." in m.group(1) else int(m.group(1))
                except ValueError:
                    continue
                found = True
        return found

    def _flush_stats(self) -> list[TrainerEvent]:
        stats, self._stats = self._stats, None
        if stats is None or any(key not in stats for key in g.STATS_REQUIRED):
            return []
        return [Statistics(**stats)]

    def _flush_config(self) -> list[TrainerEvent]:
        config, self._config = self._config, None
        if config is None:
            return []
        return [ConfigError(t=config[0], text="\n".join(config[1]))]

    # -- tracebacks ---------------------------------------------------------------------------

    def _traceback_line(self, line: str, t: float, rank: int | None, events: list[TrainerEvent]) -> bool:
        """Consume `line` if it belongs to a traceback; True when consumed."""
        tb = self._tbs.get(rank)
        stripped = line.strip()
        if tb is None:
            if g.TRACEBACK_START not in line:
                return False
            events += self._close_record()
            events += self._flush_config()
            self._tbs[rank] = _Tb(t=t, first_line=stripped)
            return True
        body = not stripped or line[0] in " \t" or line[0] in "│╭╰|"
        if not tb.seen_exception:
            if g.LEVEL.match(line):
                return False  # a log record from another stream landed inside the traceback
            if body or g.TRACEBACK_START in line:
                return True
            tb.seen_exception, tb.last_line = True, stripped
            if g.OOM.search(stripped) and "oom" not in tb.done:
                tb.done.add("oom")
                events.append(OomError(t=t, line=stripped, rank=rank))
            if g.STOP_ITERATION.search(stripped) and "stop" not in tb.done:
                tb.done.add("stop")
                events.append(StopIterationError(t=t, line=stripped, rank=rank))
            return True
        if body or stripped.startswith(g.TRACEBACK_CHAIN):
            return True
        if g.TRACEBACK_START in line:  # the next link of a chained exception
            tb.seen_exception = False
            return True
        events.append(self._end_traceback(rank))
        return False

    def _end_traceback(self, rank: int | None) -> Traceback:
        tb = self._tbs.pop(rank)
        return Traceback(t=tb.t, first_line=tb.first_line, last_line=tb.last_line, rank=rank)
