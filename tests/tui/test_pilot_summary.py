"""The plan screen: what it shows, approval, and never overwriting a run folder silently."""

from __future__ import annotations

from ltx_wizard.tui.dialogs.confirm import ConfirmDialog
from ltx_wizard.tui.screens.autotune import AutotuneScreen
from ltx_wizard.tui.screens.done import DoneScreen
from tests.tui.helpers import RUN_NAME, make_app, settle, to_summary


def _text(app, selector: str) -> str:
    return str(app.screen.query_one(selector).render())


async def test_summary_shows_tier_choices_launch_and_plan(demo_root):
    app = make_app(demo_root, at="summary")
    async with app.run_test(size=(120, 40)) as pilot:
        await to_summary(pilot)
        head = _text(app, "#summary-head")
        assert "40–60GB tier" in head and "t2v_lora_low_vram.yaml" in head
        assert RUN_NAME in head and "NVIDIA RTX A6000" in head
        assert app.screen.query_one("#choices").row_count == len(app.state.assessment.policy.key_choices)
        assert "scripts/train.py" in _text(app, "#launch")
        assert not (demo_root / "ltx-trainings" / RUN_NAME).exists()  # nothing written before approval
        await pilot.press("d")
        await pilot.pause()
        assert app.screen.query_one("#summary-tabs").active == "diff"


async def test_approve_writes_plan_and_config_then_autotunes(demo_root, scripted):
    app = make_app(demo_root, engine_factory=scripted, at="summary")
    async with app.run_test(size=(120, 40)) as pilot:
        await to_summary(pilot)
        await pilot.press("a")
        await settle(pilot)
        run = demo_root / "ltx-trainings" / RUN_NAME
        assert (run / "plan.md").is_file() and (run / "config.yaml").is_file()
        assert isinstance(app.screen, AutotuneScreen)
        assert app.state.run_dir == run


async def test_approve_skip_autotune_goes_to_done(demo_root):
    app = make_app(demo_root, at="summary")
    async with app.run_test(size=(120, 40)) as pilot:
        await to_summary(pilot)
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, DoneScreen)
        assert "Autotune: skipped" in _text(app, "#winner")


async def test_existing_plan_is_never_overwritten_silently(demo_root):
    run = demo_root / "ltx-trainings" / RUN_NAME
    run.mkdir(parents=True)
    (run / "plan.md").write_text("my edited plan\n")
    app = make_app(demo_root, at="summary")
    async with app.run_test(size=(120, 40)) as pilot:
        await to_summary(pilot)
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("n")
        await pilot.pause()
        assert (run / "plan.md").read_text() == "my edited plan\n"
        assert type(app.screen).__name__ == "SummaryScreen"
        await pilot.press("s")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot)
        assert (run / "plan.md").read_text().startswith("# Plan:")
        assert isinstance(app.screen, DoneScreen)


async def test_gate_accepted_plan_says_at_your_own_risk(demo_root):
    app = make_app(demo_root, simulate="rtx4090")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await pilot.pause()
        await pilot.press("t")
        await settle(pilot)
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert "AT YOUR OWN RISK" in _text(app, "#summary-head")
        await pilot.press("s")
        await settle(pilot)
        assert "At your own risk" in (demo_root / "ltx-trainings" / RUN_NAME / "plan.md").read_text()


async def test_cli_options_reach_the_app_and_run_dir_names_the_new_run(demo_root):
    from ltx_wizard.cli import build_parser, make_app as cli_make_app

    target = demo_root / "my-runs" / "first-try"
    args = build_parser().parse_args(["--demo", "--simulate", "h100", "--run-dir", str(target)])
    app = cli_make_app(args, demo_root=demo_root, cursor_blink=False, check_delay_s=0,
                       first_run_screens=False)  # this test is about the options, not the intent question
    assert app.options.simulate == "h100" and app.options.demo
    async with app.run_test(size=(120, 40)) as pilot:
        await to_summary(pilot)
        assert "80GB+ tier" in _text(app, "#summary-head")
        await pilot.press("s")
        await settle(pilot)
        assert (target / "plan.md").is_file()


async def test_the_batch_change_checkbox_reaches_autotune(demo_root, scripted):
    from textual.widgets import Checkbox

    seen: list[dict] = []

    def factory(*args, **kwargs):
        seen.append(kwargs)
        return scripted(*args, **kwargs)

    app = make_app(demo_root, engine_factory=factory, at="summary")
    async with app.run_test(size=(120, 40)) as pilot:
        await to_summary(pilot)
        box = app.screen.query_one("#allow-batch", Checkbox)
        assert box.value is False  # off: the approved schedule is kept
        await pilot.press("b")
        await pilot.pause()
        assert box.value is True and "steps rescaled" in str(box.label)
        # the box may be below the fold: the key says what it did
        assert any("Batch change allowed" in str(n.message) for n in app._notifications)
        await pilot.press("a")
        await settle(pilot)
        assert seen and seen[0]["allow_batch_change"] is True
