"""The plan screen: what it shows, approval, and never overwriting a run folder silently."""

from __future__ import annotations

from ltx_wizard.tui.dialogs.choice import ChoiceDialog
from ltx_wizard.tui.screens.autotune import AutotuneScreen
from ltx_wizard.tui.screens.done import DoneScreen
from tests.tui.helpers import RUN_NAME, make_app, settle, to_summary, wait_until


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
        assert isinstance(app.screen, ChoiceDialog)
        assert "is there already" in app.screen.question
        await pilot.press("escape")
        await pilot.pause()
        assert (run / "plan.md").read_text() == "my edited plan\n"
        assert type(app.screen).__name__ == "SummaryScreen"
        await pilot.press("s")
        await pilot.pause()
        await pilot.press("o")  # overwrite, asked for by name
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
    app = cli_make_app(
        args, demo_root=demo_root, cursor_blink=False, check_delay_s=0, first_run_screens=False
    )  # this test is about the options, not the intent question
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


async def test_the_batch_change_is_not_offered_where_the_trials_have_one_sample(demo_root):
    # from clips, autotune's trials run on the one clip preprocessed first: a batch of 2 cannot
    # run there (the trainer's loader drops a short batch), so the box must not promise it
    from textual.widgets import Checkbox

    app = make_app(demo_root, demo_data="clips")
    async with app.run_test(size=(120, 40)) as pilot:
        await to_summary(pilot)
        box = app.screen.query_one("#allow-batch", Checkbox)
        assert box.disabled and box.value is False
        assert "trials run on the 1 clip preprocessed first" in str(box.label)
        await pilot.press("b")
        await pilot.pause()
        assert box.value is False
        assert any("a batch of 2 needs 2" in str(n.message) for n in app._notifications)


async def test_f1_on_the_plan_says_what_skip_runs_for_this_run(demo_root):
    # F1 once said "skip goes straight to the launch step" while a clips run preprocesses first
    from ltx_wizard.tui.dialogs.help import HelpDialog

    for data, said in (
        ("clips", "*Approve, skip* runs both steps"),
        ("latents", "*Approve, skip* goes straight to the launch step"),
    ):
        app = make_app(demo_root, demo_data=data)
        async with app.run_test(size=(120, 40)) as pilot:
            await to_summary(pilot)
            await pilot.press("f1")
            await pilot.pause()
            assert isinstance(app.screen, HelpDialog)
            assert (
                said in app.screen.body
                and "goes straight to the launch step." not in (app.screen.body.split("**For this run.**")[0])
            )


async def test_back_and_approve_again_offers_a_new_folder_instead_of_a_bare_overwrite(demo_root):
    from ltx_wizard.tui.dialogs.choice import ChoiceDialog

    app = make_app(demo_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await to_summary(pilot)
        first = app.screen.draft.run_dir
        await pilot.press("s")
        await settle(pilot)
        assert (first / "plan.md").is_file()
        await pilot.press("escape")  # back from the launch step to the plan
        await wait_until(
            pilot,
            lambda: (
                type(app.screen).__name__ == "SummaryScreen"
                and getattr(app.screen, "draft", None) is not None
            ),
        )
        await pilot.press("s")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceDialog))
        assert "this wizard wrote earlier in this session" in app.screen.question
        assert all(b.region.bottom <= 24 for b in app.screen.query("Button"))
        await pilot.press("f")
        await wait_until(
            pilot,
            lambda: (
                type(app.screen).__name__ == "SummaryScreen"
                and getattr(app.screen, "draft", None) is not None
            ),
        )
        assert app.screen.draft.run_dir == first.with_name(first.name + "-2")
        before = (first / "plan.md").read_text()
        await pilot.press("s")
        await settle(pilot)
        assert (first.with_name(first.name + "-2") / "plan.md").is_file()
        assert (first / "plan.md").read_text() == before  # the first folder is left as it was


async def test_approving_before_the_plan_shows_says_why_nothing_happened(demo_root, monkeypatch):
    """a pressed while the plan is drafted (a slow disk, a large dataset) or after it was refused
    writes nothing and says so, where it used to do nothing at all."""
    import threading

    from ltx_wizard.core.base.errors import WizardError
    from ltx_wizard.core.plan import run_plan

    real, release = run_plan.prepare_plan, threading.Event()
    answer = {"refuse": False}

    def held(*args, **kwargs):
        release.wait(30)
        if answer["refuse"]:
            raise WizardError("the data root holds no .precomputed folder")
        return real(*args, **kwargs)

    monkeypatch.setattr(run_plan, "prepare_plan", held)
    said = lambda app: [str(n.message) for n in app._notifications]  # noqa: E731
    app = make_app(demo_root, at="summary")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: type(app.screen).__name__ == "SummaryScreen")
        await pilot.press("a")
        await wait_until(pilot, lambda: "The plan is still being drafted" in " ".join(said(app)))
        release.set()
        await to_summary(pilot)
        assert app.screen.draft is not None and not (demo_root / "ltx-trainings" / RUN_NAME).exists()
        answer["refuse"] = True
        app.screen.prepare_again()
        await wait_until(pilot, lambda: "Cannot plan" in _text(app, "#summary-head"))
        await pilot.press("a")
        await wait_until(pilot, lambda: "No plan to approve" in " ".join(said(app)))
        assert not (demo_root / "ltx-trainings" / RUN_NAME).exists()
