"""A labelled path input with filesystem completion and a one-line verdict under it."""

from __future__ import annotations

import asyncio
import os

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.suggester import Suggester
from textual.widgets import Input, Static


def _complete(value: str) -> str | None:
    expanded = os.path.expanduser(value)
    folder, stem = os.path.split(expanded)
    try:
        names = sorted(n for n in os.listdir(folder or ".") if n.startswith(stem) and n != stem)
    except OSError:
        return None
    if not stem:  # do not guess inside a folder until the user types a letter
        return None
    names = [n for n in names if not n.startswith(".") or stem.startswith(".")]
    if not names:
        return None
    full = os.path.join(folder, names[0])
    if os.path.isdir(full):
        full += os.sep
    # Keep what the user typed (a leading ~ stays a ~).
    return value + full[len(expanded) :]


class PathSuggester(Suggester):
    """Suggest the first directory entry that completes the typed path (→ accepts it)."""

    def __init__(self) -> None:
        super().__init__(use_cache=False, case_sensitive=True)

    async def get_suggestion(self, value: str) -> str | None:
        if not value.strip():
            return None
        # A hung network mount must not stall keystrokes: list the folder off the event loop.
        return await asyncio.to_thread(_complete, value)


class PathField(Vertical):
    """Label, input and verdict. `name` is the CheckItem name it shows (checkpoint, data_root…)."""

    DEFAULT_CSS = """
    PathField { height: auto; }
    """

    def __init__(self, name: str, label: str, value: str = "", placeholder: str = "", **kwargs) -> None:
        super().__init__(id=f"field-{name}", **kwargs)
        self.field_name = name
        self.label = label
        self.initial = value
        self.placeholder = placeholder

    def compose(self) -> ComposeResult:
        yield Static(self.label, classes="field-label")
        yield Input(
            self.initial,
            placeholder=self.placeholder,
            suggester=PathSuggester(),
            id=f"input-{self.field_name}",
            compact=True,
        )
        yield Static("", classes="field-status")
        hint = Static("", classes="candidates")
        hint.display = False
        yield hint

    def on_mount(self) -> None:
        options = getattr(self.app, "options", None)
        if options is not None:
            self.input.cursor_blink = options.cursor_blink

    @property
    def input(self) -> Input:
        return self.query_one(Input)

    @property
    def value(self) -> str:
        return self.input.value.strip()

    def set_value(self, value: str) -> None:
        self.input.value = value
        self.input.cursor_position = len(value)

    def show_verdict(self, ok: bool | None, text: str, warning: str | None = None) -> None:
        """✓ usable, ✗ not, ! usable but something needs doing first (said in `warning`)."""
        status = self.query_one(".field-status", Static)
        warn = ok is True and bool(warning)
        status.set_class(ok is True and not warn, "-ok")
        status.set_class(warn, "-warn")
        status.set_class(ok is False, "-bad")
        mark = "! " if warn else {True: "✓ ", False: "✗ ", None: "… "}[ok]
        status.update(Text.assemble((mark, "bold"), warning if warn else text))

    def show_candidates(self, count: int) -> None:
        hint = self.query_one(".candidates", Static)
        hint.update(f"{count} found on disk: F2 to pick one" if count else "")
        hint.display = bool(count)
