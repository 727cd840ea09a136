"""Helpers for the TUI tests: a deterministic app factory, a settle helper, a scripted engine.

Snapshots need every path and time on screen fixed: the clock is frozen, the cursor does not
blink, autotune events come from a script, and each snapshot test's own demo folder is shown as
SHOWN_ROOT (see test_snapshots.py).
"""

from __future__ import annotations

import asyncio
import io
import time
from datetime import datetime
from pathlib import Path

from ltx_wizard.core.autotune.events import (
    LogLine,
    TrialFinished,
    TrialPhase,
    TrialProgress,
    TrialStarted,
    VramUpdate,
)
from ltx_wizard.core.tuning.results import AutotuneSummary, TrialResult
from ltx_wizard.core.gpu.devices import MIB, GpuInfo, ProbeResult
from ltx_wizard.cli import build_parser
from ltx_wizard.cli import make_app as cli_make_app
from ltx_wizard.core.plan.host_limits import HostReadings
from ltx_wizard.tui.app import WizardApp
from textual.worker import WorkerCancelled

SHOWN_ROOT = "/tmp/ltx-wizard-snap"  # how snapshots show a test's demo folder
FIXED_NOW = datetime(2026, 1, 2, 3, 4)
RUN_NAME = "t2v-demo-clips-20260102-0304"
GiB = 1024**3
# The machine's RAM and free disk as the Summary screen reads them: fixed, so snapshots agree.
FIXED_HOST = HostReadings(
    mem_total=256 * GiB, mem_available=240 * GiB, swap_free=0, disk_free=500 * GiB, disk_path=Path("/data")
)


# Options a user gives on the command line travel as flags through the CLI's own parser; the
# rest are injection points (clock, probe, engine) the CLI's factory takes as keywords.
CLI_FLAGS = {
    "simulate": "--simulate",
    "run_dir": "--run-dir",
    "workspace": "--workspace",
    "trainer_root": "--trainer-root",
    "trainer_repo": "--trainer-repo",
    "trainer_cmd": "--trainer-cmd",
    "from_csv": "--from-csv",
    "vram_gb": "--vram-gb",
}


class FixedClock:
    """The Autotune screen's clock (options.clock): still until a test moves `now`."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def make_app(demo_root: Path | None = None, *, at: str | None = None, **overrides) -> WizardApp:
    """The app as `ltx-wizard [flags]` builds it (cli.make_app), with the test injections.
    `at="summary"`: opened at that phase instead of the Probe screen (open_at)."""
    argv = ["--demo"] if demo_root is not None or overrides.pop("demo", False) else []
    for name, flag in CLI_FLAGS.items():
        if name in overrides:
            argv += [flag, str(overrides.pop(name))]
    args = build_parser().parse_args(argv)
    # demo_data="latents": these tests start the demo from its preprocessed data root; the
    # clips path (dataset.json, preprocessing in the skill's order) has its own tests.
    # first_run_screens=False: these tests start at Paths' default recipe; the setup offers and
    # the intent question have their own tests (test_pilot_intent.py, test_pilot_setup.py).
    values = dict(
        cursor_blink=False,
        check_delay_s=0,
        now=lambda: FIXED_NOW,
        clock=FixedClock(),
        host_fn=lambda run_dir: FIXED_HOST,
        demo_data="latents",
        first_run_screens=False,
    )
    if demo_root is not None:
        values.update(demo_root=demo_root)
    values.update(overrides)
    app = cli_make_app(args, **values)
    if at is not None:
        open_at(app, at)
    return app


def open_at(app: WizardApp, phase: str) -> None:
    """Open `app` at a prepared phase instead of the Probe screen, for a test that is not about
    the walk there: the state is built directly (the demo's files and the request they fill, the
    probe and its assessment), as the walk from Probe through Paths leaves it, and the phase's
    screen is the first one pushed. test_prepared_phase.py checks that both agree."""
    if phase != "summary":
        raise ValueError(f"no prepared phase {phase!r}")

    def start() -> None:
        from ltx_wizard.core.gpu.presets import simulated_probe
        from ltx_wizard.tui.screens.summary import SummaryScreen

        app.build_demo()
        probe_fn = app.options.probe_fn
        app.nav.set_probe(probe_fn() if probe_fn is not None else simulated_probe(app.simulate))
        app.push_screen(SummaryScreen())

    app.nav.start_probe_screen = start


async def settle(pilot, rounds: int = 2) -> None:
    """Let workers finish and their messages land (no sleeps)."""
    for _ in range(rounds):
        await pilot.pause()
        await wait_workers(pilot.app)
        await pilot.pause()


async def wait_workers(app) -> None:
    """Wait for every worker of the app. An exclusive worker (the Paths checks) is cancelled
    by the next one as designed: that is no failure, while a worker that failed still raises."""
    results = await asyncio.gather(*(worker.wait() for worker in list(app.workers)), return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException) and not isinstance(result, WorkerCancelled):
            raise result


def fake_probe(name: str = "NVIDIA GB10", mib: int | None = None, count: int = 1):
    def probe() -> ProbeResult:
        gpus = tuple(
            GpuInfo(index=i, name=name, memory_total_bytes=None if mib is None else mib * MIB)
            for i in range(count)
        )
        return ProbeResult(source="nvml", gpus=gpus)

    return probe


def _result(index, change, outcome, step, peak, kept, reason="", decision="", changes=None):
    return TrialResult(
        index=index,
        change=change,
        outcome=outcome,
        step_time_s=step,
        peak_vram_gb=peak,
        kept=kept,
        reason=reason,
        decision=decision,
        changes=changes or {},
    )


class ScriptedEngine:
    """Stands in for AutotuneEngine with fixed events; `hold_after` pauses before that trial ends."""

    script = "ok"  # "ok" | "oom" | "flood" | "step_flood" | "side_by_side" | "late_end"
    hold_after: int | None = None
    instances: list["ScriptedEngine"] = []

    def __init__(
        self,
        run_dir,
        *,
        probe,
        assessment,
        trainer_cmd=None,
        simulate=None,
        max_trials=5,
        on_event=None,
        **_ignored,
    ):
        self.run_dir = run_dir
        self.on_event = on_event or (lambda e: None)
        self.cancelled = asyncio.Event()
        self.reached_hold = asyncio.Event()
        ScriptedEngine.instances.append(self)

    def cancel(self) -> None:
        self.cancelled.set()

    async def _trial(
        self, index: int, change: str, result: TrialResult, lines: int = 3
    ) -> TrialResult | None:
        emit = self.on_event
        emit(TrialStarted(index=index, change=change, total_steps=50, config_path="trial.yaml"))
        emit(TrialPhase(index=index, phase="training", label="training"))
        if self.script == "step_flood":  # a trainer printing a step line per micro-batch
            for step in range(1, 20001):
                emit(TrialProgress(index=index, step=step % 50, total=50, loss=0.1, step_time_s=0.01))
        for step in (20, 40):
            emit(
                TrialProgress(
                    index=index, step=step, total=50, loss=0.5 / step, step_time_s=result.step_time_s
                )
            )
            emit(VramUpdate(used_mib=[int((result.peak_vram_gb or 40) * 1024)], total_mib=[49140]))
            for i in range(lines):
                emit(LogLine(text=f"trial {index} step {step}: line {i}"))
            if not (self.script == "late_end" and index == 3):  # else its events land after the end
                await asyncio.sleep(0)
            if self.hold_after == index and step == 40:
                self.reached_hold.set()
                await self.cancelled.wait()
            if self.cancelled.is_set():
                done = _result(index, change, "cancelled", None, None, False, "cancelled by the user")
                emit(TrialPhase(index=index, phase="ended", label="ended"))
                emit(TrialFinished(result=done))
                return None
        emit(TrialPhase(index=index, phase="ended", label="ended"))
        emit(TrialFinished(result=result))
        return result

    async def _side_by_side(self) -> AutotuneSummary:
        """Trials 1 and 2 at once, one per GPU, both holding at step 20 until cancel(); then
        trial 2 ends first (ahead of trial 1, its result waits) and trial 1 after it."""
        emit = self.on_event
        results = [
            _result(1, "baseline", "ok", 2.4, 38.2, True, decision="kept: runs as planned"),
            _result(2, "quantization -> null", "ok", 1.9, 44.1, True, decision="kept"),
        ]
        for gpu, r in enumerate(results):  # the engine names each trial's GPU
            emit(
                TrialStarted(
                    index=r.index, change=r.change, total_steps=40, config_path="t.yaml", gpus=(gpu,)
                )
            )
            emit(TrialPhase(index=r.index, phase="loading", label="loading the model"))
        for r in results:
            emit(TrialPhase(index=r.index, phase="training", label="training"))
            emit(TrialProgress(index=r.index, step=20, total=40, loss=0.2, step_time_s=r.step_time_s))
        await asyncio.sleep(0)
        self.reached_hold.set()
        await self.cancelled.wait()
        for r in reversed(results):
            emit(TrialPhase(index=r.index, phase="ended", label="ended"))
        for r in results:
            emit(TrialFinished(result=r))
        return AutotuneSummary(trials=results, winner=2, config_patched=True)

    async def run(self) -> AutotuneSummary:
        if self.script == "side_by_side":
            return await self._side_by_side()
        plan = [
            (1, "baseline", _result(1, "baseline", "ok", 2.4, 38.2, True, decision="kept: runs as planned")),
            (
                2,
                "quantization -> null",
                _result(
                    2,
                    "quantization -> null",
                    "ok",
                    1.9,
                    44.1,
                    True,
                    decision="kept: fits ≤95%, not slower beyond 3%",
                    changes={"acceleration.quantization": None},
                ),
            ),
            (
                3,
                "optimizer_type -> adamw",
                _result(
                    3,
                    "optimizer_type -> adamw",
                    "oom" if self.script == "oom" else "ok",
                    None if self.script == "oom" else 1.8,
                    47.9,
                    self.script != "oom",
                    "CUDA out of memory" if self.script == "oom" else "",
                    decision="reverted: out of memory; the batch trials go on"
                    if self.script == "oom"
                    else "kept: fits ≤95%, not slower beyond 3%",
                ),
            ),
        ]
        trials: list[TrialResult] = []
        for index, change, result in plan:
            lines = 20000 if self.script == "flood" else 3
            done = await self._trial(index, change, result, lines)
            if done is None:
                trials.append(_result(index, change, "cancelled", None, None, False))
                break
            trials.append(done)
            if done.outcome == "oom":
                break
        good = [t for t in trials if t.outcome == "ok"]
        winner = good[-1].index if good else None
        return AutotuneSummary(
            trials=trials,
            winner=winner,
            config_patched=winner not in (None, 1),
            launch_command=["uv", "run", "python", "scripts/train.py", "config.yaml"],
            launch_line=f"cd {Path(self.run_dir).parents[1]}/LTX-2/packages/ltx-trainer && uv run python scripts/train.py {self.run_dir}/config.yaml",
            stop_reason="stopped after an out-of-memory trial" if self.script == "oom" else "",
        )


FAST_SIM = {"sim_env": {"LTX_WIZARD_SIM_SPEED": "500"}}


async def wait_until(pilot, condition, limit_s: float = 120.0) -> None:
    """Pump the event loop until `condition()` holds. The limit is wall time and generous: it only
    turns a hang into a failure, so a busy machine makes the test slower, never red."""
    deadline = time.monotonic() + limit_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition never became true")
        await pilot.pause(0.02)


def shown_text(app) -> str:
    """The screen as a snapshot takes it now (App.export_screenshot's rendering: a dialog over
    the screens under it), as plain text."""
    from rich.console import Console

    console = Console(
        width=app.size.width,
        height=app.size.height,
        file=io.StringIO(),
        record=True,
        force_terminal=True,
        legacy_windows=False,
        safe_box=False,
    )
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text()


# Every screen's header: under a dialog, it says that the screens below are drawn too (under load
# a snapshot once caught a dialog over a blank screen).
HEADER = "LTX-2 training wizard"


async def until_shown(pilot, *texts: str, when=None, idle: bool = True, limit_s: float = 120.0) -> None:
    """Wait for the state a snapshot shows (never for time, nor for a number of pauses, which a
    loaded machine outruns): every one of `texts` on screen, `when()` true, and with `idle` no
    worker of the app left running (idle=False where a worker waits on the user's answer).
    Checked again after the messages then pending are handled, so that a late one that changed
    the screen is waited for too."""
    app = pilot.app

    def there() -> bool:
        if when is not None and not when():
            return False
        shown = shown_text(app)
        return all(text in shown for text in (HEADER, *texts))

    def busy() -> bool:
        return idle and any(worker.is_running for worker in app.workers)

    while True:
        try:
            await wait_until(pilot, there, limit_s)
        except AssertionError:  # say what was missing, and what the screen showed instead
            held = when is None or bool(when())
            raise AssertionError(
                f"not shown: {[t for t in (HEADER, *texts) if t not in shown_text(app)]}, held: {held}, "
                f"screen {type(app.screen).__name__}:\n{shown_text(app)}"
            ) from None
        if idle:
            await wait_workers(app)
        await pilot.pause()
        if there() and not busy():
            return


async def to_held_trial(pilot, scripted) -> None:
    """Demo flow to the Autotune screen, until the scripted engine holds in its `hold_after` trial."""
    await to_summary(pilot)
    await pilot.press("a")
    await wait_until(pilot, lambda: bool(scripted.instances) and scripted.instances[0].reached_hold.is_set())


async def to_summary(pilot) -> None:
    """Demo flow from the probe screen to a prepared plan; for an app opened at the Summary
    screen (make_app(at="summary")), until its plan is prepared."""
    await settle(pilot)
    if type(pilot.app.screen).__name__ != "SummaryScreen":
        await pilot.press("ctrl+n")
        await settle(pilot)
        await pilot.press("ctrl+n")
        await settle(pilot)
    assert type(pilot.app.screen).__name__ == "SummaryScreen", type(pilot.app.screen).__name__
