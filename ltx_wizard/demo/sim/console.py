"""The simulated trainer's console: its log records and its death by traceback.

Holds what shapes every line the trainer prints: the process count, this process's rank, the
console width, and the clock wait spent tearing down after a traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import NoReturn

from ltx_wizard.demo.sim.rich_format import format_record


class TrainerExit(Exception):
    """The simulated trainer stops with this exit code (main returns it)."""

    def __init__(self, code: int) -> None:
        self.code = code


class TrainerOutput:
    def __init__(self, world: int, rank: int, width: int, wait: Callable[[float], None]) -> None:
        self.world, self.rank, self.width, self.wait = world, rank, width, wait

    def log(self, message: str, line: int, source: str = "trainer.py", level: str = "INFO") -> None:
        if self.world > 1:
            message = f"[rank {self.rank}] {message}"
        for text in format_record(level, message, f"{source}:{line}", self.width):
            print(text)

    def traceback(self, lines: list[str], teardown_s: float = 0.0) -> NoReturn:
        """Die of an uncaught exception (stdout stays buffered, as in Python)."""
        prefix = f"[rank{self.rank}]: " if self.world > 1 else ""
        sys.stderr.write("".join(f"{prefix}{text}\n" for text in lines))
        sys.stderr.flush()
        self.wait(teardown_s)  # interpreter shutdown, dataloader workers, CUDA context release
        raise TrainerExit(1)
