"""The TUI's desktop notification (issue 45): the Monitor sends it when the run it watches ends,
autotune when it finishes; the sequences go to the App's driver (the real terminal), captured
here, never into a widget."""

from __future__ import annotations

import re

import pytest

from ltx_wizard.tui.dialogs.confirm import ConfirmDialog
from ltx_wizard.tui.screens.monitor import MonitorScreen
from tests.monitor_runs import end, make_run, sample_log, start_live
from tests.tui.helpers import make_app, settle, to_summary, wait_until

OK = sample_log("ok_single_gpu_cols250")
CUT = "INFO     🎥 Validation samples for step 50"
STOPPED = OK.split(CUT)[0]
OSC_777 = re.compile(r"\x1b\]777;notify;ltx-wizard;([^\x1b\x07]*)\x1b\\")


@pytest.fixture(autouse=True)
def _plain_terminal(monkeypatch):
    for name in ("TMUX", "KITTY_WINDOW_ID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")


def _capture(app) -> list[str]:
    """Every write to the App's driver (the headless driver of a test writes nowhere)."""
    writes: list[str] = []
    driver = app._driver
    real = driver.write

    def write(data: str) -> None:
        writes.append(data)
        real(data)

    driver.write = write
    return writes


def _sent(writes: list[str]) -> list[str]:
    return [m for w in writes for m in OSC_777.findall(w)]


async def _monitor(pilot) -> MonitorScreen:
    await wait_until(
        pilot, lambda: isinstance(pilot.app.screen, MonitorScreen) and pilot.app.screen.status is not None
    )
    return pilot.app.screen


async def test_the_monitor_notifies_the_end_of_the_run_it_watches_once(tmp_path):
    run = make_run(tmp_path, STOPPED)
    proc = start_live(run)
    try:
        app = make_app(run_dir=str(run))
        async with app.run_test(size=(120, 40)) as pilot:
            writes = _capture(app)
            screen = await _monitor(pilot)
            assert screen.status.state == "live" and not _sent(writes)
            with open(run / "logs" / "train.log", "a", encoding="utf-8") as log:
                log.write(CUT + OK.split(CUT, 1)[1])  # the trainer's last lines, then it exits
            end(proc)
            await wait_until(pilot, lambda: bool(_sent(writes)))
            assert _sent(writes) == ["run: training done at step 50 of 50, last loss 0.1904"]
            sent = next(w for w in writes if "]777;" in w)
            assert sent.endswith(
                "\x1b]9;ltx-wizard: run: training done at step 50 of 50, last loss 0.1904\x1b\\\x07"
            )
            await wait_until(pilot, lambda: screen.status.state == "finished")
            screen.refresh_status()  # a later refresh of the same ending sends nothing
            await settle(pilot)
            assert len(_sent(writes)) == 1
            assert "Training: finished" in str(screen.query_one("#monitor-head").render())
    finally:
        end(proc)
    assert '"cause": "done"' in (run / "logs" / "notified.json").read_text()


async def test_a_run_stopped_from_the_monitor_sends_nothing(tmp_path):
    run = make_run(tmp_path, STOPPED)
    proc = start_live(run)
    try:
        app = make_app(run_dir=str(run))
        async with app.run_test(size=(120, 40)) as pilot:
            writes = _capture(app)
            screen = await _monitor(pilot)
            await wait_until(pilot, lambda: screen.status.state == "live")
            await pilot.press("s")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
            await pilot.press("y")
            await wait_until(pilot, lambda: proc.poll() is not None)
            await wait_until(pilot, lambda: screen.status.state == "stopped")
            screen.refresh_status()
            await settle(pilot)
            assert screen.status.state == "stopped" and not _sent(writes)
    finally:
        end(proc)
    assert not (run / "logs" / "notified.json").exists()


async def test_a_monitor_opened_on_an_ended_run_sends_nothing(tmp_path):
    run = make_run(tmp_path, OK)
    app = make_app(run_dir=str(run))
    async with app.run_test(size=(120, 40)) as pilot:
        writes = _capture(app)
        screen = await _monitor(pilot)
        screen.refresh_status()
        await settle(pilot)
        assert screen.status.state == "finished" and not _sent(writes)
    assert not (run / "logs" / "notified.json").exists()


async def test_autotunes_end_is_notified(demo_root, scripted):
    app = make_app(demo_root, engine_factory=scripted, at="summary")
    async with app.run_test(size=(120, 40)) as pilot:
        await to_summary(pilot)
        writes = _capture(app)
        await pilot.press("a")
        await wait_until(pilot, lambda: not app.state.autotune_running)
        await wait_until(pilot, lambda: bool(_sent(writes)))
        summary = app.state.summary
        assert summary is not None and summary.winner is not None
        (text,) = _sent(writes)
        assert text.startswith(f"{app.state.run_dir.name}: autotune finished, trial {summary.winner} wins")
