"""The Monitor screen (step 6) over run folders built from the trainer's real log format: opened by
--run-dir, live / finished / failed / stopped, and its stop, resume and fix, each behind a dialog."""

from __future__ import annotations

import pytest

from ltx_wizard.tui.dialogs.config_change import ConfigChangeDialog
from ltx_wizard.tui.dialogs.confirm import ConfirmDialog
from ltx_wizard.tui.screens.existing_run import ExistingRunScreen
from ltx_wizard.tui.screens.monitor import MonitorScreen
from tests.monitor_runs import FAILURES, end, failed_launch, make_run, sample_log, start_live
from tests.tui.helpers import make_app, settle, wait_until

STOPPED = sample_log("ok_single_gpu_cols250").split("INFO     🎥 Validation samples for step 50")[0]


def shown(app, selector: str) -> str:
    return str(app.screen.query_one(selector).render())


async def _monitor(pilot) -> MonitorScreen:
    await wait_until(
        pilot, lambda: isinstance(pilot.app.screen, MonitorScreen) and pilot.app.screen.status is not None
    )
    await settle(pilot)
    return pilot.app.screen


async def test_run_dir_with_a_finished_log_opens_the_monitor_and_writes_the_summary(tmp_path):
    run = make_run(tmp_path, sample_log("ok_single_gpu_cols250"), checkpoints=((50, True),))
    app = make_app(run_dir=str(run))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _monitor(pilot)
        assert "Training: finished" in shown(app, "#monitor-head")
        assert "Step 50 / 50 (100%)" in shown(app, "#monitor-head")
        assert "0.2437 at step 20 → 0.1904 at step 40" in shown(app, "#loss-title")
        assert screen.query_one("#loss-plot").data == [0.2437, 0.1904]
        assert "Run summary:" in shown(app, "#monitor-files")
        assert (run / "run-summary.md").exists()
        assert not screen.query_one("#stop").display  # the run is over: nothing to stop
        # run-summary.md says: raise optimization.steps, then resume; r agrees
        assert "Raise `optimization.steps`" in (run / "run-summary.md").read_text()
        assert screen.query_one("#resume").display
        await pilot.press("r")
        await settle(pilot)
        assert not isinstance(app.screen, ConfigChangeDialog)  # 50 of 50: nothing to train
        config = run / "config.yaml"
        config.write_text(config.read_text().replace("steps: 50", "steps: 80"))
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, ConfigChangeDialog)
        assert "Resume from step 50 of 80" in app.screen.sentence
        await pilot.press("n")
        await settle(pilot)
        await pilot.press("y")
        assert app.clipboard.endswith("lora_weights_step_00050.safetensors")
        await pilot.press("escape")  # back to the folder's own screen
        await settle(pilot)
        assert isinstance(app.screen, ExistingRunScreen)


async def test_a_nan_run_says_nan_on_the_monitor(tmp_path):
    run = make_run(tmp_path, sample_log("nan_loss"), checkpoints=((20, True), (50, True)))
    app = make_app(run_dir=str(run))
    async with app.run_test(size=(120, 40)) as pilot:
        await _monitor(pilot)
        assert "loss ~NaN" in shown(app, "#monitor-head")
        assert "0.2437 at step 20 → 0.2437 at step 20" in shown(app, "#loss-title")
        assert "NaN from step 40" in shown(app, "#loss-title")
        files = shown(app, "#monitor-files")
        assert "Last one saved while the loss was finite" in files and "00020" in files
        await pilot.press("y")  # the path copied is the usable one, not the all-NaN latest
        assert app.clipboard.endswith("lora_weights_step_00020.safetensors")


@pytest.mark.parametrize("case", ["oom", "nan", "config", "missing_file"])
async def test_failed_run_shows_its_cause_and_advice(tmp_path, case):
    sample, words = FAILURES[case]
    run = make_run(tmp_path, sample_log(sample))
    app = make_app(run_dir=str(run))
    async with app.run_test(size=(120, 40)) as pilot:
        await _monitor(pilot)
        failure = shown(app, "#monitor-failure")
        assert f"Failure ({case})" in failure and words in failure and "Advice" in failure


async def test_oom_fix_is_applied_only_after_yes_and_nothing_restarts(tmp_path):
    run = make_run(tmp_path, sample_log("oom_cols80"), gc=False)
    before = (run / "config.yaml").read_text()
    app = make_app(run_dir=str(run))
    async with app.run_test(size=(120, 40)) as pilot:
        await _monitor(pilot)
        await pilot.press("f")
        await settle(pilot)
        assert isinstance(app.screen, ConfigChangeDialog)
        assert "+  enable_gradient_checkpointing: true" in app.screen.diff
        await pilot.press("n")
        await settle(pilot)
        assert (run / "config.yaml").read_text() == before  # no: nothing written
        await pilot.press("f")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert "enable_gradient_checkpointing: true" in (run / "config.yaml").read_text()
        assert (run / "config.before-fix.yaml").read_text() == before
        assert isinstance(app.screen, ConfirmDialog)  # starting again is its own question
        await pilot.press("n")
        await settle(pilot)
        assert not (run / "logs" / "train.pid").exists()


async def test_stopped_run_resumes_from_its_latest_checkpoint_after_yes(tmp_path):
    run = make_run(tmp_path, STOPPED, checkpoints=((20, True), (40, True)))
    app = make_app(run_dir=str(run))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _monitor(pilot)
        assert "Training: stopped" in shown(app, "#monitor-head")
        assert screen.query_one("#resume").display
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, ConfigChangeDialog)
        assert "Resume from step 40 of 50" in app.screen.sentence
        await pilot.press("y")
        await settle(pilot)
        config = (run / "config.yaml").read_text()
        wanted = run / "outputs/checkpoints/lora_weights_step_00040.safetensors"
        assert f'load_checkpoint: "{wanted}"' in config
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("n")
        await settle(pilot)
        assert not (run / "logs" / "train.pid").exists()


async def test_live_run_is_stopped_only_after_yes(tmp_path):
    run = make_run(tmp_path, STOPPED)
    proc = start_live(run)
    try:
        app = make_app(run_dir=str(run))
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await _monitor(pilot)
            assert f"live: pid {proc.pid}" in shown(app, "#monitor-head")
            await pilot.press("s")
            await settle(pilot)
            assert isinstance(app.screen, ConfirmDialog)
            # the dialog reads as a sentence whatever was saved ("The no checkpoint..." once)
            question = app.screen.question
            assert "The no checkpoint" not in question
            assert question.endswith("No checkpoint was saved yet, so every step trained so far is lost.")
            await pilot.press("n")
            await settle(pilot)
            assert proc.poll() is None
            await pilot.press("s")
            await settle(pilot)
            await pilot.press("y")
            await wait_until(pilot, lambda: proc.poll() is not None)
            await wait_until(pilot, lambda: screen.status.state == "stopped")
    finally:
        end(proc)


async def test_the_resume_dialog_keeps_its_buttons_on_screen_at_80x24(tmp_path):
    # the sentence (what the state restores, the samples kept) and the diff scroll together
    run = make_run(
        tmp_path, STOPPED, steps=100, val_interval=20, checkpoints=((20, True), (40, True)), samples=(40,)
    )
    app = make_app(run_dir=str(run))
    async with app.run_test(size=(80, 24)) as pilot:
        await _monitor(pilot)
        await pilot.press("r")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, ConfigChangeDialog) and "not the optimizer state" in dialog.sentence
        for button in ("#yes", "#no"):
            region = dialog.query_one(button).region
            assert region.height > 0 and region.bottom <= 24 and region.right <= 80, region
        await pilot.press("y")
        await settle(pilot)
        assert (run / "outputs/samples/kept-before-resume/step_000040_1.mp4").exists()


async def test_a_launch_that_dies_before_the_trainer_shows_why(model_tree):
    """The Monitor of a run whose launch.sh died at `exec uv`: its cause, not "no trainer process"."""
    run = failed_launch(model_tree(sim=None))
    app = make_app(run_dir=str(run))
    async with app.run_test(size=(120, 40)) as pilot:
        await _monitor(pilot)
        assert "failed (launch.sh stopped before the trainer started)" in shown(app, "#monitor-head")
        failure = shown(app, "#monitor-failure")
        assert "Failure (launch)" in failure and "`uv` is not on its PATH" in failure
        assert "exec: uv: not found" in failure


async def test_the_stop_dialog_names_the_checkpoint_saved_since_the_last_refresh(tmp_path):
    # issue 41: "The checkpoint of step 250 stays" when step 500's was written a moment before
    run = make_run(tmp_path, STOPPED, checkpoints=((20, True),))
    proc = start_live(run)
    try:
        app = make_app(run_dir=str(run))
        async with app.run_test(size=(120, 40)) as pilot:
            screen = await _monitor(pilot)
            assert [c.step for c in screen.status.checkpoints] == [20]
            folder = run / "outputs" / "checkpoints"
            (folder / "lora_weights_step_00040.safetensors").write_bytes(b"weights 40")
            await pilot.press("s")
            await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
            assert app.screen.question.endswith(
                "The checkpoint of step 40 stays; the steps since then are lost."
            )
            (folder / "lora_weights_step_00060.safetensors").write_bytes(b"weights 60")
            notes: list[str] = []
            app.notify = lambda message, **kw: notes.append(str(message))  # type: ignore[method-assign]
            await pilot.press("y")
            await wait_until(pilot, lambda: any("stopped" in n for n in notes))
            said = next(n for n in notes if "stopped" in n)
            assert said.endswith("The latest checkpoint is step 60's (lora_weights_step_00060.safetensors).")
    finally:
        end(proc)


def _oom_after_a_save() -> str:
    crash = sample_log("oom_cols80")
    return STOPPED + crash[crash.index("Traceback") :]


@pytest.mark.parametrize(
    ("case", "buttons"),
    [
        ("live", ["copy", "stop"]),
        ("failed", ["copy", "resume", "fix", "compare"]),
        ("stopped", ["copy", "resume", "compare"]),
    ],
)
async def test_at_80_columns_the_buttons_that_apply_and_every_footer_key_fit(tmp_path, case, buttons):
    """Only the buttons that apply are shown (five did not fit in 80 columns), and the footer,
    which leaves out the keys the buttons name, fits whole."""
    from textual.widgets import Button
    from textual.widgets._footer import FooterKey

    log = _oom_after_a_save() if case == "failed" else STOPPED
    run = make_run(tmp_path, log, gc=False, checkpoints=((20, True), (40, True)))
    proc = start_live(run) if case == "live" else None
    try:
        app = make_app(run_dir=str(run))
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await _monitor(pilot)
            await settle(pilot)
            shown_buttons = [b for b in screen.query(Button) if b.display]
            assert [b.id for b in shown_buttons] == buttons
            assert all(b.region.right <= 80 and b.region.width >= len(str(b.label)) for b in shown_buttons)
            keys = list(screen.query(FooterKey))
            assert [k.action for k in keys] == [
                "samples",
                "results",
                "open_file",
                "back",
                "quit",
                "screen_help",
            ]
            assert all(0 < k.region.right <= 80 for k in keys)
            for button in shown_buttons:  # each says its key, which the footer leaves out
                assert f"({next(b.key for b in screen.BINDINGS if b.action == button.id)})" in str(
                    button.label
                )
    finally:
        if proc is not None:
            end(proc)
