"""The intent question after the probe, and the setup offers where something is missing."""

from __future__ import annotations

from ltx_wizard.core.inputs import uv_tool
from tests.setup_standins import make_remote, path_with, uv_calls, write_uv
from tests.tui.helpers import fake_probe, make_app, settle, wait_until


async def test_a_style_lora_in_plain_words_plans_i2v(demo_root):
    app = make_app(demo_root, first_run_screens=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert type(app.screen).__name__ == "IntentScreen"
        app.screen.query_one("#intent-text").focus()
        await pilot.press(*"a style lora of my paintings", "enter")
        await settle(pilot)
        mode = str(app.screen.query_one("#intent-mode").render())
        assert "image-to-video (I2V) LoRA, usable for both" in mode and "configs/i2v_lora.yaml" in mode
        await pilot.press("down", "down", "enter")  # the follow-up: from text alone
        await settle(pilot)
        assert "text-to-video (T2V)" in str(app.screen.query_one("#intent-mode").render())
        assert app.screen.focused is app.screen.query_one("#confirm")  # a choice moves on to Confirm
        app.screen.query_one("#follow-up").focus()
        await pilot.press("up", "up", "enter")  # back to both / not sure
        await settle(pilot)
        await pilot.press("ctrl+n")  # confirmed
        await settle(pilot)
        assert type(app.screen).__name__ == "PathsScreen" and app.state.request.recipe == "i2v_lora"
        await wait_until(pilot, lambda: len(app.screen.offered_recipes) > 1)
        assert str(app.screen.query_one("#recipe").value) == "i2v_lora"


async def test_no_match_is_said_and_skip_keeps_the_recipe_list(demo_root):
    app = make_app(demo_root, first_run_screens=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await settle(pilot)
        app.screen.query_one("#intent-text").focus()
        await pilot.press(*"knit a sweater", "enter")
        await settle(pilot)
        assert app.screen.query_one("#confirm").disabled
        await pilot.press("ctrl+n")  # nothing chosen: not confirmed
        await settle(pilot)
        assert type(app.screen).__name__ == "IntentScreen"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert type(app.screen).__name__ == "PathsScreen" and app.state.request.recipe == "t2v_lora"


def _offline(url):
    raise OSError("no network in tests")


async def test_setup_offers_after_the_probe_run_only_after_yes(tmp_path, monkeypatch):
    remote = make_remote(tmp_path / "remote")
    write_uv(tmp_path / "bin")
    monkeypatch.setenv("PATH", path_with(tmp_path, tmp_path / "bin"))
    monkeypatch.setattr(uv_tool, "own_scripts_dir", lambda: tmp_path / "none")
    app = make_app(
        probe_fn=fake_probe("NVIDIA H100 80GB HBM3", 81559),
        first_run_screens=True,
        setup_survey=dict(repo=str(remote), fetch=_offline),
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert type(app.screen).__name__ == "SetupScreen"
        await wait_until(
            pilot, lambda: "Clone the LTX-2 trainer" in str(app.screen.query_one("#setup-offer").render())
        )
        assert not (tmp_path / "home" / "LTX-2").exists()  # nothing before the yes
        await pilot.press("y")
        await wait_until(pilot, lambda: "uv sync" in str(app.screen.query_one("#setup-offer").render()))
        assert (tmp_path / "home" / "LTX-2" / ".git").is_dir()
        await pilot.press("y")
        await wait_until(pilot, lambda: not app.screen.query_one("#continue").disabled)
        done = str(app.screen.query_one("#setup-offer").render())
        assert "clone: done" in done and "sync: done" in done and "Setup log:" in done
        assert [c["argv"][0] for c in uv_calls(tmp_path / "bin")] == ["sync", "run"]
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert type(app.screen).__name__ == "IntentScreen"
        assert app.state.request.trainer_root == tmp_path / "home" / "LTX-2"
