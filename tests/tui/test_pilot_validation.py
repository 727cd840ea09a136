"""The Paths screen's validation section (issue 19, item 1): shown for a recipe whose samples read
media, asking for the files (the dataset file's media on keys 1-9), the prompts, or validation
without media / none; Continue is refused until the choice is one plan accepts."""

from __future__ import annotations


from textual.widgets import Input, Select, Static

from ltx_wizard.core.io.yaml_patch import load_yaml
from ltx_wizard.demo.lookalike_checkout import make_checkout
from ltx_wizard.tui.screens.paths import PathsScreen
from ltx_wizard.tui.screens.summary import SummaryScreen
from ltx_wizard.tui.widgets.validation_panel import ValidationPanel
from tests.tui.helpers import ScriptedEngine, make_app, settle, to_summary, wait_until


async def _paths_with(pilot, recipe: str):
    app = pilot.app
    await settle(pilot)
    await pilot.press("ctrl+n")
    await settle(pilot)
    assert isinstance(app.screen, PathsScreen)
    await wait_until(pilot, lambda: len(app.screen.offered_recipes) > 1)
    app.screen.query_one("#recipe", Select).value = recipe
    await settle(pilot)


def _status(app) -> str:
    return str(app.screen.query_one("#validation-status", Static).render())


async def _summary_config(pilot) -> tuple[dict, str]:
    app = pilot.app
    await pilot.press("ctrl+n")
    await settle(pilot)
    assert isinstance(app.screen, SummaryScreen)
    await wait_until(pilot, lambda: getattr(app.screen, "draft", None) is not None)
    return load_yaml(app.screen.draft.config_text), app.screen.draft.plan_text


async def test_a_text_only_recipe_asks_nothing(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(120, 50)) as pilot:
        await _paths_with(pilot, "t2a_lora")
        assert app.screen.query_one(ValidationPanel).display is False


async def test_placeholder_media_are_asked_for_and_prompts_only_is_written(demo_root, tmp_path):
    checkout = make_checkout(tmp_path / "LTX-2")  # placeholders, as the real recipes ship
    app = make_app(demo_root, trainer_root=checkout)
    async with app.run_test(size=(120, 50)) as pilot:
        await _paths_with(pilot, "i2v_lora")
        panel = app.screen.query_one(ValidationPanel)
        assert panel.display is True
        needs = str(app.screen.query_one("#validation-needs", Static).render())
        assert "sample 1: image; sample 2: image" in needs
        assert _status(app).startswith("✗ type a file for each")
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert isinstance(app.screen, PathsScreen)  # refused: nothing chosen yet
        assert app.screen.focused is app.screen.query_one("#validation-media", Input)
        app.screen.query_one("#validation-mode", Select).value = "prompts-only"
        await settle(pilot)
        assert _status(app).startswith("✓ Validation without conditioning media")
        config, plan = await _summary_config(pilot)
        assert all("conditions" not in s for s in config["validation"]["samples"])
        assert "Validation without conditioning media: 2 validation samples" in plan


async def test_dataset_media_are_one_key_choices_and_reach_the_config(demo_root, tmp_path):
    # The demo writes dataset.json beside its data root, naming its clips (demo/builder.py).
    checkout = make_checkout(tmp_path / "LTX-2")
    app = make_app(demo_root, trainer_root=checkout)
    async with app.run_test(size=(120, 50)) as pilot:
        await _paths_with(pilot, "i2v_lora")
        media = demo_root / "media"
        offers = app.screen.query_one("#validation-offers")
        assert offers.display is True and offers.option_count == 2  # the two videos fit an image
        offers.focus()
        await pilot.press("1", "2")
        await settle(pilot)
        typed = app.screen.query_one("#validation-media", Input).value
        assert typed == f"{media / 'prefix_1.mp4'}; {media / 'prefix_2.mp4'}"
        assert _status(app).startswith("✓ Validation: 2 validation samples with your media")
        prompts = app.screen.query_one("#validation-prompts")
        prompts.text = "my first prompt\nmy second prompt"
        await settle(pilot)
        config, _ = await _summary_config(pilot)
        samples = config["validation"]["samples"]
        assert [s["conditions"][0]["image_or_video"] for s in samples] == [
            str(media / "prefix_1.mp4"),
            str(media / "prefix_2.mp4"),
        ]
        assert [s["prompt"] for s in samples] == ["my first prompt", "my second prompt"]


async def test_a_file_the_trainer_cannot_read_is_named_under_the_section(demo_root, tmp_path):
    checkout = make_checkout(tmp_path / "LTX-2")
    bad = tmp_path / "notes.png"
    bad.write_text("not an image")
    app = make_app(demo_root, trainer_root=checkout)
    async with app.run_test(size=(120, 50)) as pilot:
        await _paths_with(pilot, "v2v_ic_lora")
        app.screen.query_one("#validation-media", Input).value = str(bad)
        await pilot.press("ctrl+n")  # at once: Continue waits for the check of what was typed
        await settle(pilot)
        assert isinstance(app.screen, PathsScreen)
        status = _status(app)
        assert status.startswith(f"✗ {bad}: ")
        assert "no known container" in status and str(bad) in status


class _SetupStopEngine(ScriptedEngine):
    """Two trials finish, then the validating run cannot read a medium (core/autotune/sweep/setup_stop.py)."""

    async def run(self):
        summary = await super().run()
        reason = (
            "trial 3 (optimizer_type -> adamw) failed before step 1 for a reason no trial's "
            "change causes: FileNotFoundError: [Errno 2] No such file or directory: "
            "'/m/one.png'. File: /m/one.png. Fix: put the file there; then run autotune "
            "again: the finished trials are kept and not run again (2 finished trials kept)."
        )
        return summary.model_copy(
            update={
                "trials": summary.trials[:2],
                "winner": None,
                "config_patched": False,
                "stop_reason": reason,
                "setup_failure": reason,
            }
        )


async def test_a_setup_stop_reads_as_one_on_the_autotune_screen(demo_root, scripted):
    app = make_app(demo_root, engine_factory=_SetupStopEngine, at="summary")
    async with app.run_test(size=(120, 40)) as pilot:
        await to_summary(pilot)
        await pilot.press("a")
        await wait_until(pilot, lambda: not app.state.autotune_running)
        await settle(pilot)
        status = str(app.screen.query_one("#at-status", Static).render())
        assert "Stopped by a setup failure; the planned config is kept." in status
        assert "No trial succeeded" not in status
        assert "File: /m/one.png" in status and "run autotune again" in status
