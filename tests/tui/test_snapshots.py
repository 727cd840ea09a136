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

from tests.tui.helpers import SHOWN_ROOT, ScriptedEngine, fake_probe, make_app, settle, to_summary, wait_until

SIZES = [(80, 24), (120, 40)]


async def _probe(pilot):
    await settle(pilot)


async def _gate(pilot):
    await settle(pilot)
    await pilot.press("ctrl+n")
    await pilot.pause()


async def _paths(pilot):
    await settle(pilot)
    await pilot.press("ctrl+n")
    await settle(pilot)


async def _recipe_choice(pilot):
    await _paths(pilot)
    await wait_until(pilot, lambda: len(pilot.app.screen.offered_recipes) > 1)
    pilot.app.screen.query_one("#recipe").focus()
    await pilot.press("enter")  # the list of the checkout's recipes, opened
    await settle(pilot)


async def _summary(pilot):
    await to_summary(pilot)


async def _autotune_running(pilot):
    await to_summary(pilot)
    await pilot.press("a")
    await wait_until(
        pilot, lambda: bool(ScriptedEngine.instances) and ScriptedEngine.instances[0].reached_hold.is_set()
    )
    for _ in range(3):  # the held engine's last progress and VRAM messages land first
        await pilot.pause()
    pilot.app.screen.flush_log()
    pilot.app.options.clock.now += 65  # trial 2 has run 1:05 (the clock is the test's)
    pilot.app.screen.query_one("#trial-phases").refresh_rows()
    await pilot.pause()


async def _autotune_done(pilot):
    await to_summary(pilot)
    await pilot.press("a")
    await wait_until(pilot, lambda: not pilot.app.state.autotune_running)
    await settle(pilot)


async def _done(pilot):
    await _autotune_done(pilot)
    await pilot.press("ctrl+n")
    await settle(pilot)


async def _existing(pilot):
    await settle(pilot)


async def _monitor(pilot):
    from ltx_wizard.tui.screens.monitor import MonitorScreen

    await wait_until(
        pilot, lambda: isinstance(pilot.app.screen, MonitorScreen) and pilot.app.screen.status is not None
    )
    await settle(pilot)


async def _intent(pilot):
    await settle(pilot)
    await pilot.press("ctrl+n")
    await settle(pilot)
    await pilot.press("enter")  # a style/character/concept LoRA: how will it be used?
    await settle(pilot)


async def _setup(pilot):
    await settle(pilot)
    await pilot.press("ctrl+n")
    await wait_until(pilot, lambda: "Clone" in str(pilot.app.screen.query_one("#setup-offer").render()))
    await settle(pilot)


def _github_size(url: str) -> bytes:
    assert url == "https://api.github.com/repos/Lightricks/LTX-2"
    return b'{"size": 123456}'


SCENARIOS = {
    "probe": ({}, _probe),
    "gate": ({"simulate": "rtx4090"}, _gate),
    "vram_ask": ({"demo": False, "probe_fn": fake_probe("NVIDIA GB10", None)}, _gate),
    "paths": ({}, _paths),
    "recipe_choice": ({}, _recipe_choice),
    # opened at the Summary screen (helpers.open_at): the walk there has its own snapshots
    "summary": ({"at": "summary"}, _summary),
    "autotune_running": ({"at": "summary"}, _autotune_running),
    "autotune_side_by_side": ({"at": "summary", "simulate": "2xa6000"}, _autotune_running),  # two rows
    "autotune_done": ({"at": "summary"}, _autotune_done),
    "done": ({"at": "summary"}, _done),
    "existing_run": ({}, _existing),
    "monitor": ({}, _monitor),
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
