"""The steps of journey a (tests/journeys/test_journey_demo.py): the demo walked by keyboard at
80x24, each step a function that presses keys, waits for the state it leads to, and returns what
the screen showed so that the test can read it against the files on disk.

Everything waits for a state (a screen on top, a widget's text, a file), never for time.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ltx_wizard.core.io.yaml_patch import load_yaml
from ltx_wizard.tui.dialogs.confirm import ConfirmDialog
from ltx_wizard.tui.dialogs.holdout_ask import HoldoutDialog
from ltx_wizard.tui.dialogs.spot_check import SpotCheckDialog
from ltx_wizard.tui.screens.intent import IntentScreen
from ltx_wizard.tui.screens.monitor import MonitorScreen
from ltx_wizard.tui.screens.paths import PathsScreen
from ltx_wizard.tui.screens.prepare import PrepareScreen
from ltx_wizard.tui.screens.probe import ProbeScreen
from tests.tui.helpers import settle
from tests.tui.helpers import wait_until as _wait_until

STEP_LINE = re.compile(r"Step (\d+)/(\d+) - Loss: ([0-9.]+)")


async def wait_until(pilot, condition, limit_s: float = 120.0) -> None:
    """tests.tui.helpers.wait_until, saying on a hang which screen was on top and what it showed."""
    try:
        await _wait_until(pilot, condition, limit_s)
    except AssertionError:
        screen = pilot.app.screen
        texts = [flat(str(w.render())) for w in screen.query("Static")]
        raise AssertionError(f"never true; on top: {type(screen).__name__}: {texts}") from None


def shown(app, selector: str) -> str:
    """What a widget of the screen on top shows, as plain text (folded lines joined)."""
    return str(app.screen.query_one(selector).render())


def flat(text: str) -> str:
    """A screen's text with its folds undone: at 80 columns a path breaks across lines."""
    return re.sub(r"\s*\n\s*", "", text)


def on_top(app, kind: type) -> bool:
    return isinstance(app.screen, kind)


def steps_in(log: Path) -> list[tuple[int, int, float]]:
    """The trainer's step lines (step, total, loss), in the order printed."""
    text = log.read_text(encoding="utf-8", errors="replace") if log.is_file() else ""
    return [(int(s), int(t), float(x)) for s, t, x in STEP_LINE.findall(text)]


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def config(run: Path) -> dict[str, Any]:
    return load_yaml((run / "config.yaml").read_text(encoding="utf-8"))


async def probe_to_intent(pilot) -> str:
    """The probe's tier line, then Continue to the intent question."""
    app = pilot.app
    await wait_until(pilot, lambda: on_top(app, ProbeScreen) and app.state.assessment is not None)
    await wait_until(pilot, lambda: app.demo is not None)  # the demo's files are written
    await wait_until(pilot, lambda: not app.screen.query_one("#continue").disabled)
    await settle(pilot)
    tier = flat(shown(app, "#tier"))
    await pilot.press("ctrl+n")
    await wait_until(pilot, lambda: on_top(app, IntentScreen))
    await settle(pilot)
    return tier


async def intent_text_to_video(pilot) -> str:
    """↓ Enter picks "Generate videos from text"; returns the screen's sentence about it."""
    app = pilot.app
    await pilot.press("down", "enter")
    await wait_until(pilot, lambda: not app.screen.query_one("#confirm").disabled)
    said = flat(shown(app, "#intent-mode"))
    await pilot.press("ctrl+n")
    await wait_until(pilot, lambda: on_top(app, PrepareScreen))
    await wait_until(pilot, lambda: (app.demo.root / "raw-clips" / "quiet.mp4").is_file())
    await settle(pilot)
    return said


async def prepare_raw_clips(pilot) -> tuple[list[str], str]:
    """Prepare with the screen's own defaults: each question answered by its key. Returns the
    questions asked, in order, and the status line said at the end."""
    app = pilot.app
    asked: list[str] = []
    await pilot.press("ctrl+n")
    while True:
        await wait_until(
            pilot,
            lambda: (
                on_top(app, (ConfirmDialog, HoldoutDialog, SpotCheckDialog))
                or (on_top(app, PrepareScreen) and app.screen.result is not None)
                or (on_top(app, PrepareScreen) and app.screen.has_class("-failed"))
            ),
        )
        screen = app.screen
        if isinstance(screen, PrepareScreen):
            break
        # no settle() here: the prepare worker waits on this very dialog
        await pilot.pause()
        if isinstance(screen, SpotCheckDialog):
            asked.append("spot check: " + " | ".join(caption for _, caption in screen.shown))
            await pilot.press("a")
        elif isinstance(screen, HoldoutDialog):
            asked.append("holdout: " + screen.question)
            await pilot.press("1")
        else:
            asked.append("confirm: " + screen.question)
            await pilot.press("y")
        await wait_until(pilot, lambda shown=screen: app.screen is not shown)
    await settle(pilot)
    return asked, flat(shown(app, "#prep-status"))


async def continue_to_paths_and_plan(pilot) -> tuple[str, str]:
    """Continue to Paths (its checks done), then to the plan's summary. Returns what each said."""
    app = pilot.app
    await pilot.press("ctrl+n")
    await wait_until(pilot, lambda: on_top(app, PathsScreen) and app.screen._checked is not None)
    await settle(pilot)
    # the fields (Input values) and their verdicts (Statics), as shown
    shown_text = [i.value for i in app.screen.query("Input")] + [
        str(w.render()) for w in app.screen.query("Static")
    ]
    paths = "\n".join(flat(t) for t in shown_text)
    await pilot.press("ctrl+n")
    await wait_until(
        pilot,
        lambda: (
            type(app.screen).__name__ == "SummaryScreen" and getattr(app.screen, "draft", None) is not None
        ),
    )
    await settle(pilot)
    return paths, flat(shown(app, "#summary-head"))


async def approve_and_autotune(pilot) -> str:
    """a: approve the plan; the one-sample preprocess runs first, then autotune to its end."""
    app = pilot.app
    await pilot.press("a")
    await wait_until(pilot, lambda: type(app.screen).__name__ == "AutotuneScreen", limit_s=180)
    await wait_until(
        pilot,
        lambda: (
            not app.state.autotune_running
            and app.state.summary is not None
            and not app.screen.query_one("#continue").disabled
        ),
        limit_s=240,
    )
    await settle(pilot)
    return flat(shown(app, "#at-status"))


async def continue_to_done(pilot) -> str:
    """Continue: the full preprocess runs first, then the Done screen."""
    app = pilot.app
    await pilot.press("ctrl+n")
    await wait_until(pilot, lambda: type(app.screen).__name__ == "DoneScreen", limit_s=180)
    await settle(pilot)
    return flat(shown(app, "#winner")) + "\n" + flat(shown(app, "#launch-line"))


async def start_training(pilot) -> str:
    """t, then y in the dialog: launch.sh in the background and the Monitor on top."""
    app = pilot.app
    await pilot.press("t")
    await wait_until(pilot, lambda: on_top(app, ConfirmDialog))
    question = flat(app.screen.question)
    await pilot.press("y")
    await wait_until(pilot, lambda: on_top(app, MonitorScreen) and app.screen.status is not None)
    return question


async def monitor_reads(pilot, condition, limit_s: float = 120.0) -> MonitorScreen:
    """Wait until the Monitor's own reading of the run (its status) satisfies `condition`."""
    app = pilot.app
    await wait_until(
        pilot,
        lambda: on_top(app, MonitorScreen) and app.screen.status is not None and condition(app.screen.status),
        limit_s=limit_s,
    )
    await settle(pilot)
    return app.screen


async def answer(pilot, kind: type, key: str) -> Any:
    """Wait for a dialog of `kind`, press `key`, wait until it is gone; return the dialog."""
    app = pilot.app
    await wait_until(pilot, lambda: on_top(app, kind))
    await pilot.pause()  # no settle(): a worker may be waiting on this dialog
    dialog = app.screen
    await pilot.press(key)
    await wait_until(pilot, lambda: app.screen is not dialog)
    return dialog
