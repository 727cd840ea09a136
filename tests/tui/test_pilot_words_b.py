"""Issue 41 (words-b): what the Autotune screen's F1 and its OOM advice say for a run planned from
clips, read from the run's records (preprocess.json, plan.json)."""

from __future__ import annotations

from ltx_wizard.core.tuning.results import AutotuneSummary, TrialResult
from ltx_wizard.tui.dialogs.confirm import ConfirmDialog
from ltx_wizard.tui.dialogs.help import HelpDialog
from tests.tui.helpers import make_app, settle, to_summary, wait_until


async def test_autotune_f1_says_the_full_preprocess_runs_before_the_launch_step(demo_root):
    # F1 said "Next. The launch step." while Continue preprocesses every clip first
    app = make_app(demo_root, demo_data="clips")
    async with app.run_test(size=(120, 40)) as pilot:
        await to_summary(pilot)
        await pilot.press("a")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "AutotuneScreen")
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpDialog))
        body = app.screen.body
        assert "**Next.** The launch step." not in body
        assert "**For this run.** Continue first preprocesses every clip into the data root" in body
        await pilot.press("f1")
        await settle(pilot)


async def test_a_baseline_oom_on_a_clips_run_advises_a_smaller_bucket_not_the_trainers_script(demo_root):
    # the advice sent the user to process_dataset.py, which the wizard runs itself for clips
    app = make_app(demo_root, demo_data="clips")
    async with app.run_test(size=(120, 40)) as pilot:
        await to_summary(pilot)
        await pilot.press("s")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "DoneScreen")
        await settle(pilot)
        app.state.summary = AutotuneSummary(
            trials=[TrialResult(index=1, change="baseline", outcome="oom", reason="CUDA out of memory")],
            winner=None,
            config_patched=False,
        )
        await pilot.press("t")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        question = app.screen.question
        assert "process_dataset.py" not in question
        assert "plan again with a smaller bucket" in question and "--resolution-buckets WxHxF" in question
        await pilot.press("n")


async def test_the_breadcrumb_says_autotune_was_skipped_after_approve_skip(demo_root):
    # it showed "4 Autotune ✓" after "Approve, skip": nothing was tuned (no autotune.json)
    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await to_summary(pilot)
        await pilot.press("s")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "DoneScreen")
        await settle(pilot)
        bar = str(app.screen.query_one("#steps").render())
        assert "4 Autotune skipped" in bar and "Autotune ✓" not in bar and "3 Plan ✓" in bar
        assert not (app.state.run_dir / "autotune.json").exists()
