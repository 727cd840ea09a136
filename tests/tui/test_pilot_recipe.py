"""The recipe choice on the Paths screen: the checkout's recipes, the data read for the chosen one,
and the Summary planning it (the low-VRAM keys applied on the demo's 40–60GB tier)."""

from __future__ import annotations

from textual.widgets import Select, Static

from ltx_wizard.demo.lookalike_models import make_data_root
from ltx_wizard.tui.screens.paths import PathsScreen
from ltx_wizard.tui.screens.summary import SummaryScreen
from tests.tui.helpers import make_app, settle, wait_until


async def _to_paths(pilot):
    await settle(pilot)
    await pilot.press("ctrl+n")
    await settle(pilot)
    assert isinstance(pilot.app.screen, PathsScreen)


def _verdict(app, name) -> str:
    return str(app.screen.query_one(f"#field-{name}").query_one(".field-status").render())


def _offered(app) -> list[str]:
    return app.screen.offered_recipes if isinstance(app.screen, PathsScreen) else []


async def test_the_checkouts_recipes_are_offered_t2v_first(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(100, 40)) as pilot:
        await _to_paths(pilot)
        await wait_until(pilot, lambda: len(_offered(app)) > 1)
        offered = _offered(app)
        assert offered[0] == "t2v_lora"
        assert {"i2v_lora", "v2v_ic_lora", "t2a_lora", "video_inpainting_lora"} <= set(offered)
        assert "t2v_lora_low_vram" not in offered  # t2v's twin is chosen by tier, not offered
        assert app.screen.query_one("#recipe", Select).value == "t2v_lora"


async def test_choosing_an_ic_lora_checks_the_data_for_reference_latents(demo_root, tmp_path):
    plain = make_data_root(tmp_path / "clips" / ".precomputed", 2)  # t2v's folders only
    app = make_app(demo_root)
    async with app.run_test(size=(100, 40)) as pilot:
        await _to_paths(pilot)
        app.screen.query_one("#field-data_root").set_value(str(plain))
        await wait_until(pilot, lambda: len(_offered(app)) > 1)
        await settle(pilot)
        assert _verdict(app, "data_root").startswith("✓")
        app.screen.query_one("#recipe", Select).value = "v2v_ic_lora"
        await settle(pilot)
        verdict = _verdict(app, "data_root")
        assert verdict.startswith("✗") and "reference_latents/" in verdict
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert isinstance(app.screen, PathsScreen)  # refused until the data fits the recipe


async def test_summary_plans_the_chosen_recipe_with_the_applied_keys(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(120, 50)) as pilot:
        await _to_paths(pilot)
        await wait_until(pilot, lambda: len(_offered(app)) > 1)
        app.screen.query_one("#recipe", Select).value = "i2v_lora"
        await settle(pilot)
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert isinstance(app.screen, SummaryScreen)
        await wait_until(pilot, lambda: getattr(app.screen, "draft", None) is not None)
        draft = app.screen.draft
        assert app.state.request.recipe == "i2v_lora"
        assert draft.base_config == "i2v_lora.yaml" and draft.run_name.startswith("i2v-")
        head = str(app.screen.query_one("#summary-head", Static).render())
        assert "Recipe: i2v_lora (video generated (first_frame) + audio generated)" in head
        assert "lora.rank: 16 (from t2v_lora_low_vram.yaml)" in head
        assert "optimization.optimizer_type: adamw8bit (from t2v_lora_low_vram.yaml)" in head
