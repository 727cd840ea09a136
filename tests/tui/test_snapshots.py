"""Snapshot of every screen at 80x24 and 120x40 (pytest-textual-snapshot).

Deterministic by construction: each test's demo folder is its own, but its path has the length of
SHOWN_ROOT and screenshots show it as SHOWN_ROOT (so layout and text match on every run, and two
runs at once never share a folder); the clock is frozen, the cursor does not blink, autotune
events come from a script, and PATH holds only this Python's folder (so "uv missing" reads the
same on every machine). Update with `--snapshot-update` after looking at the diff report.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
import textual._doc

from tests.tui.helpers import (
    SHOWN_ROOT,
    ScriptedEngine,
    fake_probe,
    make_app,
    to_summary,
    until_shown,
    wait_until,
)

SIZES = [(80, 24), (120, 40)]

# Each scenario ends on until_shown (helpers.py): the texts its picture shows, and the state
# behind them, waited for; the machine's load makes a test slower, never a picture early.


def _is(name: str):
    return lambda app: type(app.screen).__name__ == name


def _paths_checked(app) -> bool:
    """The Paths screen with every required field's verdict in and the checkout's recipes read."""
    from ltx_wizard.tui.screens.paths.fields import REQUIRED

    if type(app.screen).__name__ != "PathsScreen" or len(app.screen.offered_recipes) < 2:
        return False
    verdicts = [str(app.screen.query_one(f"#field-{n} .field-status").render()) for n in REQUIRED]
    return all(v and not v.startswith("…") for v in verdicts)


async def _probe(pilot):
    await until_shown(pilot, "NVIDIA RTX A6000", "Base config:", when=lambda: _is("ProbeScreen")(pilot.app))


async def _gate(pilot):
    await until_shown(pilot, "simulated machine", when=lambda: _is("ProbeScreen")(pilot.app))
    await pilot.press("ctrl+n")
    await until_shown(pilot, "Below the 32 GB minimum", "Try anyway (t)")


async def _vram_ask(pilot):
    await until_shown(pilot, "NVIDIA GB10", when=lambda: _is("ProbeScreen")(pilot.app))
    await pilot.press("ctrl+n")  # the memory is asked for on Continue
    await until_shown(
        pilot, "GPU memory unknown", "Use it (Enter)", when=lambda: _is("VramAskDialog")(pilot.app)
    )


async def _paths(pilot):
    await _probe(pilot)
    await pilot.press("ctrl+n")
    await until_shown(pilot, "✓ 3 samples in", "1 found on disk", when=lambda: _paths_checked(pilot.app))


async def _recipe_choice(pilot):
    await _paths(pilot)
    pilot.app.screen.query_one("#recipe").focus()
    await pilot.press("enter")  # the list of the checkout's recipes, opened
    await until_shown(pilot, "a2v_lora · video generated", "video_inpainting_lora · video generated (mask)")


def _summary_ready(app) -> bool:
    return _is("SummaryScreen")(app) and getattr(app.screen, "draft", None) is not None


async def _summary(pilot):
    await to_summary(pilot)
    await until_shown(
        pilot, "Key choices of the base config", "lora.rank", when=lambda: _summary_ready(pilot.app)
    )


async def _held(pilot, clock: str, *texts: str):
    """Autotune held in a trial (the scripted engine): its events drawn, then 1:05 on its clock."""
    await to_summary(pilot)
    await pilot.press("a")
    await wait_until(
        pilot, lambda: bool(ScriptedEngine.instances) and ScriptedEngine.instances[0].reached_hold.is_set()
    )
    # the held engine's last progress and VRAM messages drawn (its worker runs on: not idle)
    await until_shown(pilot, *texts, idle=False)
    pilot.app.screen.flush_log()
    pilot.app.options.clock.now += 65  # trial 2 has run 1:05 (the clock is the test's)
    pilot.app.screen.query_one("#trial-phases").refresh_rows()
    await until_shown(pilot, clock, idle=False)


async def _autotune_running(pilot):
    await _held(
        pilot, "step 40/50 · 1:05", "Trial 2  step 40/50", "VRAM GPU0 44.1/48 GiB", "step time 1.90 s"
    )


async def _autotune_side_by_side(pilot):
    await _held(
        pilot,
        "GPU 1 · training · step 20/40 · 1:05",
        "trial 2 · GPU 1 · training · step 20/40",
        "step time 1.90 s",
    )


async def _autotune_done(pilot):
    await to_summary(pilot)
    await pilot.press("a")
    await until_shown(
        pilot, "Done. Winner: trial 3", "step time 1.80 s", when=lambda: not pilot.app.state.autotune_running
    )
    # its toast (timed: gone after some seconds) is the toast test's, not the pictures'
    pilot.app.clear_notifications()
    await pilot.pause()


async def _done(pilot):
    await _autotune_done(pilot)
    await pilot.press("ctrl+n")
    await until_shown(pilot, "Start training with", "✓ launch.sh", "Autotune: winner trial 3")


async def _existing(pilot):
    await until_shown(pilot, "This run folder already has a plan.", "Resume autotune")


def _monitor_read(app) -> bool:
    from ltx_wizard.tui.screens.monitor import MonitorScreen

    return isinstance(app.screen, MonitorScreen) and app.screen.status is not None


async def _monitor(pilot):
    await until_shown(
        pilot, "Training: failed", "Proposed fix", "Loss over the run", when=lambda: _monitor_read(pilot.app)
    )


async def _resume(pilot):
    from ltx_wizard.tui.dialogs.config_change import ConfigChangeDialog

    await until_shown(pilot, "Training: stopped", when=lambda: _monitor_read(pilot.app))
    await pilot.press("r")
    app = pilot.app
    await until_shown(
        pilot,
        "Resume training",
        "Patch config.yaml (y)",
        when=lambda: isinstance(app.screen, ConfigChangeDialog) and app.screen.fitted_to == app.size,
    )


async def _intent(pilot):
    await _probe(pilot)
    await pilot.press("ctrl+n")
    await until_shown(pilot, "Add sound to a silent video", when=lambda: _is("IntentScreen")(pilot.app))
    await pilot.press("enter")  # a style/character/concept LoRA: how will it be used?
    await until_shown(pilot, "Got it: I'll train an image-to-video", "Confirm (ctrl+n)")


async def _setup(pilot):
    await until_shown(pilot, "NVIDIA H100", when=lambda: _is("ProbeScreen")(pilot.app))
    await pilot.press("ctrl+n")
    await until_shown(pilot, "Clone the LTX-2 trainer", "Size: about", "Do it?")


def _github_size(url: str) -> bytes:
    assert url == "https://api.github.com/repos/Lightricks/LTX-2"
    return b'{"size": 123456}'


SCENARIOS = {
    "probe": ({}, _probe),
    "gate": ({"simulate": "rtx4090"}, _gate),
    "vram_ask": ({"demo": False, "probe_fn": fake_probe("NVIDIA GB10", None)}, _vram_ask),
    "paths": ({}, _paths),
    "recipe_choice": ({}, _recipe_choice),
    # opened at the Summary screen (helpers.open_at): the walk there has its own snapshots
    "summary": ({"at": "summary"}, _summary),
    "autotune_running": ({"at": "summary"}, _autotune_running),
    "autotune_side_by_side": ({"at": "summary", "simulate": "2xa6000"}, _autotune_side_by_side),  # two rows
    "autotune_done": ({"at": "summary"}, _autotune_done),
    "done": ({"at": "summary"}, _done),
    "existing_run": ({}, _existing),
    "monitor": ({}, _monitor),
    "resume": ({}, _resume),  # the Monitor's Resume dialog over a stopped run with checkpoints
    "intent": ({"first_run_screens": True}, _intent),
    "setup": (
        {
            "demo": False,
            "probe_fn": fake_probe("NVIDIA H100 80GB HBM3", 81559),
            "first_run_screens": True,
            "setup_survey": {"fetch": _github_size},
        },
        _setup,
    ),
}


@pytest.fixture
def demo_root(monkeypatch):
    """A demo folder of this test's own, named with as many characters as SHOWN_ROOT (the same
    layout on screen), and shown as SHOWN_ROOT in the screenshot that is compared."""
    parent = Path(SHOWN_ROOT).parent
    prefix = "ltxsnap"
    root = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    assert len(str(root)) == len(SHOWN_ROOT), root  # mkdtemp adds 8 characters
    take = textual._doc.take_svg_screenshot

    def shown(*args, **kwargs) -> str:
        return take(*args, **kwargs).replace(str(root), SHOWN_ROOT)

    monkeypatch.setattr(textual._doc, "take_svg_screenshot", shown)
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def fixed_path(monkeypatch):
    monkeypatch.setenv("PATH", os.path.dirname(sys.executable))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_screen(scenario, size, snap_compare, demo_root, scripted, fixed_path):
    overrides, run_before = SCENARIOS[scenario]
    overrides = dict(overrides)
    if scenario == "autotune_running":
        scripted.hold_after = 2
    if scenario == "autotune_side_by_side":
        scripted.script = "side_by_side"
    if scenario == "existing_run":
        run = demo_root / "ltx-trainings" / "t2v-demo-clips-20260102-0304"
        run.mkdir(parents=True)
        (run / "plan.md").write_text("# Plan: t2v-demo-clips-20260102-0304\n")
        (run / "config.yaml").write_text("model: {}\n")
        overrides["run_dir"] = str(run)
    if scenario == "monitor":  # a run that failed (OOM) after saving a checkpoint
        from tests.monitor_runs import make_run, sample_log

        steps = sample_log("ok_single_gpu_cols250").split("INFO     🎥 Validation samples for step 50")[0]
        crash = sample_log("oom_cols80")
        run = make_run(
            demo_root, steps + crash[crash.index("Traceback") :], gc=False, checkpoints=((40, True),)
        )
        overrides["run_dir"] = str(run)
    if scenario == "resume":  # stopped at step 40 of 100, a checkpoint and a sample at 40
        from tests.monitor_runs import make_run, sample_log

        steps = sample_log("ok_single_gpu_cols250").split("INFO     🎥 Validation samples for step 50")[0]
        run = make_run(
            demo_root, steps, steps=100, val_interval=20, checkpoints=((20, True), (40, True)), samples=(40,)
        )
        overrides["run_dir"] = str(run)
    if scenario == "setup":  # a bare box: git and a stand-in uv, no checkout yet
        from tests.setup_standins import path_with, write_uv

        write_uv(demo_root / "bin")
        os.environ["PATH"] = path_with(demo_root, demo_root / "bin")  # fixed_path restores it
        overrides["trainer_root"] = str(demo_root / "LTX-2")
    app = make_app(
        None if overrides.pop("demo", True) is False else demo_root, engine_factory=scripted, **overrides
    )
    try:
        assert snap_compare(app, terminal_size=size, run_before=run_before)
    finally:
        for engine in scripted.instances:  # a held script must not outlive its test
            engine.cancel()
