"""A stand-in for core/compare/recommend.py while it is written on its own branch (the recommend
helper's, issue 44): its API as /work/brief/recommend.md fixes it, with the least rule that the
tests here need (never an unhealthy checkpoint; the lowest held-out loss, else the latest). Used
only when the real module is absent: `install` puts it in sys.modules for this process and
returns a folder whose sitecustomize.py does the same in a child wizard (PYTHONPATH)."""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path

SOURCE = """
from dataclasses import dataclass


@dataclass(frozen=True)
class CheckpointResult:
    step: int
    path: str
    held_out_loss: float | None
    train_loss: float | None
    effect: float | None
    health_ok: bool
    problems: tuple[str, ...]


@dataclass(frozen=True)
class Recommendation:
    step: int | None
    reason: str


def recommend(results, held_out_note):
    healthy = [r for r in results if r.health_ok]
    if not healthy:
        return Recommendation(None, "no healthy checkpoint: none is recommended")
    with_loss = [r for r in healthy if r.held_out_loss is not None]
    if with_loss:
        best = min(with_loss, key=lambda r: (r.held_out_loss, r.step))
        return Recommendation(best.step, f"step {best.step:,}: lowest held-out loss ({best.held_out_loss:.4f})")
    best = max(healthy, key=lambda r: r.step)
    return Recommendation(best.step, f"step {best.step:,}: the latest healthy checkpoint ({held_out_note})")
"""
NAME = "ltx_wizard.core.compare.recommend"


def needed() -> bool:
    try:
        return importlib.util.find_spec(NAME) is None
    except ValueError:  # the stand-in itself, in sys.modules without a spec
        return True


def install(monkeypatch, folder: Path) -> str | None:
    """The stand-in where the real module is absent; the PYTHONPATH entry for a child, or None."""
    if not needed():
        return None
    module = types.ModuleType(NAME)
    monkeypatch.setitem(sys.modules, NAME, module)  # before its dataclasses are made: they look it up
    exec(compile(SOURCE, NAME, "exec"), module.__dict__)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(
        "import sys, types\n"
        f"m = types.ModuleType({NAME!r})\n"
        f"sys.modules[{NAME!r}] = m\n"
        f"exec({SOURCE!r}, m.__dict__)\n",
        encoding="utf-8",
    )
    return str(folder)
