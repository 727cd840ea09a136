"""Progress of a setup step, read from the lines its tool prints to a pipe.

`uv sync` on a pipe prints no bars, but plain lines: "Resolved N packages in ...", for each large
wheel "Downloading NAME (SIZE)" then "Downloaded NAME", "Prepared N packages in ...", "Installed N
packages in ..." (and " + name==version" per package). `git clone --progress` prints "Receiving
objects:  42% (...)" lines (carriage returns between them). Each parser turns a line into the
phase and a fraction when the line says one; a line it does not know changes nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_SIZE = re.compile(r"\(([\d.]+)\s*([KMG]i?B)\)")
_UNITS = {"KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "KB": 1e3, "MB": 1e6, "GB": 1e9}
_PERCENT = re.compile(r"(Receiving objects|Resolving deltas|Updating files):\s+(\d+)%")


@dataclass
class StepProgress:
    phase: str = "starting"
    fraction: float | None = None  # None: no measure yet (a spinner, not a bar)
    detail: str = ""

    def feed(self, line: str) -> None:  # each kind of step reads its own lines
        return None

    def line(self) -> str:
        pct = f" {self.fraction * 100:.0f}%" if self.fraction is not None else ""
        return f"{self.phase}{pct}" + (f": {self.detail}" if self.detail else "")


@dataclass
class UvSyncProgress(StepProgress):
    """Resolved -> downloading (bytes of the announced wheels) -> prepared -> installed."""

    announced: dict[str, float] = field(default_factory=dict)
    done: set[str] = field(default_factory=set)

    def feed(self, line: str) -> None:
        text = line.strip()
        if text.startswith("Resolved "):
            self.phase, self.detail = "resolved", text
        elif text.startswith("Downloading "):
            name = text.split()[1]
            size = _SIZE.search(text)
            self.announced[name] = float(size.group(1)) * _UNITS[size.group(2)] if size else 0.0
            self._downloads(name)
        elif text.startswith("Downloaded ") and len(text.split()) > 1:
            self.done.add(text.split()[1])
            self._downloads(text.split()[1])
        elif text.startswith("Prepared "):
            self.phase, self.fraction, self.detail = "installing", 1.0, text
        elif text.startswith(("Installed ", "Audited ")):
            self.phase, self.fraction, self.detail = "done", 1.0, text

    def _downloads(self, name: str) -> None:
        total = sum(self.announced.values())
        got = sum(v for k, v in self.announced.items() if k in self.done)
        self.phase = "downloading"
        self.fraction = got / total if total else None
        self.detail = f"{len(self.done)} of {len(self.announced)} large wheels ({name})"


@dataclass
class GitProgress(StepProgress):
    def feed(self, line: str) -> None:
        for part in line.split("\r"):
            match = _PERCENT.search(part)
            if match:
                self.phase = match.group(1).lower()
                self.fraction = int(match.group(2)) / 100
                self.detail = ""


@dataclass
class PlainProgress(StepProgress):
    def feed(self, line: str) -> None:
        if line.strip():
            self.phase = "running"
            self.detail = line.strip()[:100]


def progress_for(kind: str) -> StepProgress:
    kinds: dict[str, type[StepProgress]] = {"uv-sync": UvSyncProgress, "git": GitProgress}
    return kinds.get(kind, PlainProgress)()
