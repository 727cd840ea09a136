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


async def test_plan_f1_names_the_changed_keys_and_the_files_from_the_plan(demo_root):
    # F1 said "only paths and the multi-GPU rules changed" beside 6-7 applied low-VRAM keys, and
    # "What gets written" left out plan.json, preprocess.json, dataset/, overfit/ and the data root
    from textual.widgets import Select

    from ltx_wizard.core.plan.run_files import changed_keys
    from ltx_wizard.core.plan.run_plan import write_plan
    from ltx_wizard.tui.screens.paths import PathsScreen

    app = make_app(demo_root, demo_data="clips")
    async with app.run_test(size=(120, 50)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await wait_until(
            pilot, lambda: isinstance(app.screen, PathsScreen) and len(app.screen.offered_recipes) > 1
        )
        app.screen.query_one("#recipe", Select).value = "i2v_lora"
        await settle(pilot)
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: getattr(app.screen, "draft", None) is not None)
        draft = app.screen.draft
        rec = draft.record
        assert len(rec.applied) >= 5
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, HelpDialog))
        body = app.screen.body
        assert "only paths and the" not in body
        keys = changed_keys(rec.base_text, rec.config_text)
        assert f"with {len(keys)} keys changed ({len(rec.applied)} of them the low-VRAM keys" in body
        assert all(f"`{k}`" in body for k in keys) and "`acceleration.quantization`" in body
        # every file the plan writes, and the data root the full preprocess writes beside dataset.json
        folder = write_plan(draft)
        on_disk = sorted(p.name for p in folder.root.iterdir())
        for name in on_disk:
            assert f"{folder.root}/{name}`" in body or f"{folder.root}/{name}/`" in body, name
        assert f"`{rec.data.root}/`: the full preprocess's latents" in body
        assert f"all {rec.data.listed} listed clips" in body
        await pilot.press("f1")
        await settle(pilot)
