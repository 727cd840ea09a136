"""Progress of the trainer's preprocessing, parsed from its output.

process_captions.py and process_videos.py draw rich progress bars ("Processing captions",
"Processing videos", "Encoding audio") with an `N/M` column; with FORCE_COLOR set they redraw on
a pipe too, each redraw ended by a carriage return or cursor moves. Their log lines name the
clips they skip and how many videos had sound.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

PHASES = {"Processing captions": "captions", "Processing videos": "videos", "Encoding audio": "audio"}
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
_BAR = re.compile(r"(Processing captions|Processing videos|Encoding audio)\b.*?(\d+)/(\d+)")
_SKIP = re.compile(r"Skipping video at (.+?) - has (\d+) frames")
_AUDIO = re.compile(r"Audio processing: (\d+) videos with audio, (\d+) videos without audio")
# the environment that makes rich draw its bars on a pipe, wide enough for the N/M column
PROGRESS_ENV = {"FORCE_COLOR": "1", "TTY_COMPATIBLE": "1", "COLUMNS": "200"}


@dataclass
class PhaseProgress:
    name: str
    done: int
    total: int
    started: float  # when the phase's first count was seen
    base: int = 0  # its count then (a resumed run starts past 0)
    eta_s: float | None = None

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 1.0


@dataclass
class ProgressParser:
    phases: dict[str, PhaseProgress] = field(default_factory=dict)
    current: PhaseProgress | None = None
    skipped: list[tuple[str, int]] = field(default_factory=list)
    audio_counts: tuple[int, int] | None = None  # (with audio, without)
    _rest: str = ""

    def feed(self, text: str, now: float) -> bool:
        """Take more output; True when a bar moved."""
        lines = re.split(r"[\r\n]", self._rest + text)
        self._rest = lines.pop()
        moved = False
        for raw in lines:
            moved |= self._line(_ANSI.sub("", raw), now)
        return moved

    def feed_line(self, line: str, now: float) -> bool:
        """Take one whole line (core/proc/lines.py cut it); True when a bar moved."""
        return self._line(_ANSI.sub("", line), now)

    def _line(self, line: str, now: float) -> bool:
        if (m := _SKIP.search(line)) is not None:
            self.skipped.append((m.group(1), int(m.group(2))))
        if (m := _AUDIO.search(line)) is not None:
            self.audio_counts = (int(m.group(1)), int(m.group(2)))
        m = _BAR.search(line)
        if m is None:
            return False
        name, done, total = PHASES[m.group(1)], int(m.group(2)), int(m.group(3))
        phase = self.phases.get(name)
        if phase is None or done < phase.done:
            phase = self.phases[name] = PhaseProgress(name, done, total, started=now, base=done)
        phase.done, phase.total = done, total
        # ETA once a rate exists: items finished since the phase was first seen, per second
        elapsed = now - phase.started
        if done > phase.base and elapsed > 0:
            phase.eta_s = (total - done) * elapsed / (done - phase.base)
        self.current = phase
        return True

    def line(self) -> str:
        """One human line: `videos 12/40 (30%), about 2m 10s left`."""
        phase = self.current
        if phase is None:
            return "starting (loading the models)"
        text = f"{phase.name} {phase.done}/{phase.total} ({phase.fraction:.0%})"
        if phase.eta_s is not None and phase.done < phase.total:
            text += f", about {format_eta(phase.eta_s)} left"
        return text


def format_eta(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds >= 3600:
        return f"{seconds // 3600}h {seconds % 3600 // 60:02d}m"
    if seconds >= 60:
        return f"{seconds // 60}m {seconds % 60:02d}s"
    return f"{seconds}s"
