"""Done screen (copy, background training) and opening an existing run folder."""

from __future__ import annotations

import os
import signal

from ltx_wizard.tui.dialogs.confirm import ConfirmDialog
from ltx_wizard.tui.screens.autotune import AutotuneScreen
from ltx_wizard.tui.screens.done import DoneScreen
from ltx_wizard.tui.screens.existing_run import ExistingRunScreen
from ltx_wizard.tui.screens.monitor import MonitorScreen
from ltx_wizard.tui.screens.probe import ProbeScreen
from tests.tui.helpers import FAST_SIM, RUN_NAME, make_app, settle, to_summary, wait_until


async def _done(pilot) -> None:
    await to_summary(pilot)
    await pilot.press("s")
    await settle(pilot)
    assert isinstance(pilot.app.screen, DoneScreen)


async def test_copy_puts_bash_launch_sh_on_the_clipboard_and_says_what_osc52_needs(demo_root):
    app = make_app(demo_root, at="summary")
    run = demo_root / "ltx-trainings" / RUN_NAME
    async with app.run_test(size=(80, 24)) as pilot:
        await _done(pilot)
        await pilot.press("c")
        await pilot.pause()
        assert app.clipboard == f"bash {run}/launch.sh"
        assert str(app.screen.query_one("#launch-line").render()) == app.clipboard
        # Shown whole at 80 columns: wrapped inside its box, nothing scrolled out of view or cut.
        line = app.screen.query_one("#launch-line")
        width = line.content_region.width
        assert line.region.right <= 80 and width < len(app.clipboard)  # longer than a line here
        assert line.content_region.height >= -(-len(app.clipboard) // width)  # every piece shows
        assert line.virtual_size.width <= width  # nothing to scroll to
        notes = " ".join(str(n.message) for n in app._notifications)
        assert "set -g set-clipboard on" in notes and "OSC 52" in notes


async def test_start_training_in_background_writes_log_and_pid(demo_root):
    app = make_app(demo_root, at="summary")
    run = demo_root / "ltx-trainings" / RUN_NAME
    async with app.run_test(size=(120, 40)) as pilot:
        await _done(pilot)
        await pilot.press("t")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("y")
        await pilot.pause()
        pid = int((run / "logs" / "train.pid").read_text().split()[0])  # "<pid> <start time>"
        try:
            # The Done screen hands over to the Monitor (step 6), which watches the simulated run.
            assert isinstance(app.screen, MonitorScreen)
            done = app.screen_stack[-2]
            assert f"pid {pid}" in str(done.query_one("#train-status").render())
            assert done.query_one("#train").disabled
            log = run / "logs" / "train.log"
            await wait_until(pilot, lambda: log.stat().st_size > 0)
            await wait_until(
                pilot, lambda: app.screen.status is not None and app.screen.status.state == "live"
            )
            assert f"live: pid {pid}" in str(app.screen.query_one("#monitor-head").render())
            assert "GPUs are simulated" in str(app.screen.query_one("#monitor-pace").render())
        finally:
            os.killpg(pid, signal.SIGTERM)  # its own session: the group is the child's alone
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:  # the Monitor's refresh reaped it first
                pass


async def test_start_training_declined_starts_nothing(demo_root):
    app = make_app(demo_root, at="summary")
    async with app.run_test(size=(120, 40)) as pilot:
        await _done(pilot)
        await pilot.press("t")
        await pilot.pause()
        await pilot.press("n")
        await pilot.pause()
        assert not (demo_root / "ltx-trainings" / RUN_NAME / "logs" / "train.pid").exists()


async def _existing_run(demo_root):
    first = make_app(demo_root)
    async with first.run_test(size=(120, 40)) as pilot:
        await _done(pilot)
    return demo_root / "ltx-trainings" / RUN_NAME


async def test_existing_run_folder_offers_view_plan_and_new_run(demo_root):
    run = await _existing_run(demo_root)
    app = make_app(demo_root, run_dir=str(run))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ExistingRunScreen)
        assert str(run) in str(app.screen.query_one("#existing-body").render())
        await pilot.press("v")
        await pilot.pause()
        assert app.screen.query_one("#plan-view").display
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, ProbeScreen)
        assert app.state.run_dir is None


async def test_existing_run_folder_resumes_autotune(demo_root, scripted):
    run = await _existing_run(demo_root)
    before = (run / "plan.md").read_text()
    app = make_app(demo_root, run_dir=str(run), engine_factory=scripted)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, AutotuneScreen)
        await wait_until(pilot, lambda: not app.state.autotune_running)
        assert scripted.instances[0].run_dir == run
        await settle(pilot)
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert isinstance(app.screen, DoneScreen)
        assert str(run) in str(app.screen.query_one("#launch-line").render())
    assert (run / "plan.md").read_text() == before  # nothing overwritten


async def test_resume_continues_from_the_log_without_rerunning_finished_trials(demo_root):
    first = make_app(demo_root, **FAST_SIM, at="summary")
    async with first.run_test(size=(120, 40)) as pilot:
        await to_summary(pilot)
        await pilot.press("a")  # approve and autotune
        await wait_until(pilot, lambda: first.state.summary is not None)
    run = demo_root / "ltx-trainings" / RUN_NAME
    log = run / "autotune.log"
    lines = log.read_text().splitlines()
    # Keep the log as an SSH drop after the baseline would have left it.
    cut = next(i for i, line in enumerate(lines) if '"kind": "trial"' in line and '"index": 1,' in line)
    log.write_text("\n".join(lines[: cut + 1]) + "\n")
    app = make_app(demo_root, run_dir=str(run), **FAST_SIM)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await wait_until(pilot, lambda: app.state.summary is not None)
        await settle(pilot)
        assert app.state.summary.trials[0].outcome == "ok"
    text = log.read_text()
    trial_1 = [line for line in text.splitlines() if '"kind": "trial"' in line and '"index": 1,' in line]
    assert len(trial_1) == 1  # the baseline was not run again
    assert "autotune started: resumed" in text and "== autotune summary ==" in text
