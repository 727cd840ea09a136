"""The paths form: live validation, split packs, completion, picking what discovery found."""

from __future__ import annotations

from pathlib import Path

from ltx_wizard.demo.lookalike_models import make_checkpoint, make_packed_gemma, make_vae
from ltx_wizard.tui.dialogs.pick import PickDialog
from ltx_wizard.tui.screens.paths import PathsScreen
from ltx_wizard.tui.screens.summary import SummaryScreen
from ltx_wizard.tui.widgets.path_field import PathSuggester
from tests.tui.helpers import make_app, settle


async def _to_paths(pilot):
    await settle(pilot)
    await pilot.press("ctrl+n")
    await settle(pilot)
    assert isinstance(pilot.app.screen, PathsScreen)


def _field(app, name):
    return app.screen.query_one(f"#field-{name}")


def _verdict(app, name) -> str:
    return str(_field(app, name).query_one(".field-status").render())


async def test_demo_paths_are_prefilled_and_all_pass(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(100, 40)) as pilot:
        await _to_paths(pilot)
        for name in ("checkpoint", "text_encoder", "data_root"):
            assert _verdict(app, name).startswith("✓"), name
        assert _verdict(app, "trainer_root")[0] in "✓!"  # "!" when this machine lacks uv
        assert "19.0 B params" in _verdict(app, "checkpoint")
        assert not _field(app, "video_vae").display  # unified checkpoint: no VAE fields


async def test_bad_path_then_good_path(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(100, 40)) as pilot:
        await _to_paths(pilot)
        good = _field(app, "checkpoint").value
        _field(app, "checkpoint").set_value("")
        await pilot.click("#input-checkpoint")
        await pilot.press(*"/nope.safetensors")
        await settle(pilot)
        verdict = _verdict(app, "checkpoint")
        assert verdict.startswith("✗") and "/nope.safetensors" in verdict
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert isinstance(app.screen, PathsScreen)  # refused: the field is marked
        assert app.focused is app.screen.query_one("#input-checkpoint")
        _field(app, "checkpoint").set_value(good)
        await settle(pilot)
        assert _verdict(app, "checkpoint").startswith("✓")
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert isinstance(app.screen, SummaryScreen)
        assert str(app.state.request.checkpoint) == good


async def test_empty_required_field_blocks_continue(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(100, 40)) as pilot:
        await _to_paths(pilot)
        _field(app, "data_root").set_value("")
        await settle(pilot)
        assert "required" in _verdict(app, "data_root")
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert isinstance(app.screen, PathsScreen)


async def test_split_pack_shows_vae_fields_and_needs_them(demo_root, tmp_path):
    split = make_checkpoint(tmp_path / "ltx-2-split.safetensors", split=True)
    packed = make_packed_gemma(tmp_path / "gemma-packed.safetensors")
    app = make_app(demo_root)
    async with app.run_test(size=(100, 40)) as pilot:
        await _to_paths(pilot)
        _field(app, "checkpoint").set_value(str(split))
        _field(app, "text_encoder").set_value(str(packed))
        await settle(pilot)
        assert _field(app, "video_vae").display and _field(app, "audio_vae").display
        assert _verdict(app, "video_vae").startswith("✗")
        _field(app, "video_vae").set_value(str(make_vae(tmp_path / "video_vae.safetensors", "video")))
        _field(app, "audio_vae").set_value(str(make_vae(tmp_path / "audio_vae.safetensors", "audio")))
        await settle(pilot)
        assert _verdict(app, "video_vae").startswith("✓")
        assert _verdict(app, "audio_vae").startswith("✓")
        assert app.state.split_pack


async def test_f2_picks_a_discovered_candidate(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(100, 40)) as pilot:
        await _to_paths(pilot)
        expected = _field(app, "text_encoder").value
        _field(app, "text_encoder").set_value("")
        await pilot.click("#input-text_encoder")
        await pilot.press("f2")
        await pilot.pause()
        assert isinstance(app.screen, PickDialog)
        await pilot.press("enter")
        await settle(pilot)
        assert _field(app, "text_encoder").value == expected
        assert _verdict(app, "text_encoder").startswith("✓")


async def test_a_cut_short_discovery_says_so_on_the_form_and_in_f2(demo_root, monkeypatch):
    from ltx_wizard.core.inputs import discovery

    real = discovery.discover

    def cut_short(*args, **kwargs):  # as when the budget runs out on a hung mount
        found = real(*args, **kwargs)
        return found.model_copy(update={"timed_out": True, "unsearched": (Path("/mnt/nfs"),)})

    monkeypatch.setattr(discovery, "discover", cut_short)
    app = make_app(demo_root)
    async with app.run_test(size=(100, 40)) as pilot:
        await _to_paths(pilot)
        notes = [n.message for n in app._notifications]
        assert any("list is partial; not searched: /mnt/nfs" in n for n in notes), notes
        await pilot.click("#input-checkpoint")
        await pilot.press("f2")
        await pilot.pause()
        assert isinstance(app.screen, PickDialog)
        assert "not searched: /mnt/nfs" in str(app.screen.query_one("#pick-partial").render())


async def test_path_completion_suggests_the_next_entry(tmp_path):
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "ltx-2.safetensors").write_bytes(b"")
    suggester = PathSuggester()
    assert await suggester.get_suggestion(str(tmp_path / "mo")) == str(tmp_path / "models") + "/"
    assert await suggester.get_suggestion(str(tmp_path / "models" / "ltx")) == str(
        tmp_path / "models" / "ltx-2.safetensors"
    )
    assert await suggester.get_suggestion(str(tmp_path / "nothing-here")) is None


async def test_escape_goes_back_to_probe(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(100, 40)) as pilot:
        await _to_paths(pilot)
        await pilot.press("escape")
        await pilot.pause()
        assert type(app.screen).__name__ == "ProbeScreen"


async def test_missing_uv_is_a_warning_with_its_install_line_not_a_tick(demo_root, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    app = make_app(demo_root)
    async with app.run_test(size=(100, 40)) as pilot:
        await _to_paths(pilot)
        verdict = _verdict(app, "trainer_root")
        assert verdict.startswith("!") and "`ltx-wizard setup` installs it" in verdict
        await pilot.press("ctrl+n")  # a warning, not an error: the plan can still be made
        await settle(pilot)
        assert isinstance(app.screen, SummaryScreen)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "uv").write_text("#!/bin/sh\n")
    (bin_dir / "uv").chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    app = make_app(demo_root)
    async with app.run_test(size=(100, 40)) as pilot:
        await _to_paths(pilot)
        assert _verdict(app, "trainer_root").startswith("✓")


async def test_empty_fields_say_what_to_type_not_which_cli_flag(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(100, 40)) as pilot:
        await _to_paths(pilot)
        for name in ("checkpoint", "data_root"):
            _field(app, name).set_value("")
        await settle(pilot)
        checkpoint, data = _verdict(app, "checkpoint"), _verdict(app, "data_root")
        assert checkpoint.startswith("✗") and "--checkpoint" not in checkpoint and "F2" in checkpoint
        assert "process_dataset.py" in data


async def test_a_data_root_without_latents_names_process_dataset(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(100, 40)) as pilot:
        await _to_paths(pilot)
        _field(app, "data_root").set_value(str(demo_root))  # the demo folder: no latents/ there
        await settle(pilot)
        verdict = _verdict(app, "data_root")
        assert verdict.startswith("✗") and "scripts/process_dataset.py" in verdict
        assert "--resolution-buckets" in verdict


async def test_video_only_data_is_said_plainly_and_the_box_trains_video_only(demo_root, tmp_path):
    from textual.widgets import Checkbox

    from ltx_wizard.demo.lookalike_models import make_data_root
    from ltx_wizard.core.io.yaml_patch import get_dotted, load_yaml

    clips = make_data_root(tmp_path / "clips" / ".precomputed", 3, audio=False)
    app = make_app(demo_root)
    async with app.run_test(size=(100, 40)) as pilot:
        await _to_paths(pilot)
        box = app.screen.query_one("#video-only", Checkbox)
        assert not box.display  # the demo data has audio: nothing to choose
        _field(app, "data_root").set_value(str(clips))
        await settle(pilot)
        verdict = _verdict(app, "data_root")
        assert verdict.startswith("✗") and "has no audio_latents/" in verdict
        assert "the Video only box below" in verdict and box.display
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert isinstance(app.screen, PathsScreen)  # refused until chosen
        box.value = True
        await settle(pilot)
        assert _verdict(app, "data_root").startswith("✓ 3 samples in conditions, latents (video only)")
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert isinstance(app.screen, SummaryScreen) and app.state.request.video_only
        await settle(pilot)
        draft = app.screen.draft
        assert get_dotted(load_yaml(draft.config_text), "training_strategy.audio") is None
        assert "+  audio: null" in draft.diff and "`training_strategy.audio: null`" in draft.plan_text
        head = str(app.screen.query_one("#summary-head").render())
        assert "video only (training_strategy.audio: null)" in head


async def test_the_mouse_continues_and_goes_back(demo_root):
    # The Continue and Back buttons answer a click as their keys do (not only ctrl+n / escape).
    app = make_app(demo_root)
    async with app.run_test(size=(100, 40)) as pilot:
        await _to_paths(pilot)
        await pilot.click("#back")
        await settle(pilot)
        assert type(app.screen).__name__ == "ProbeScreen"
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert isinstance(app.screen, PathsScreen)
        await pilot.click("#continue")
        await settle(pilot)
        assert isinstance(app.screen, SummaryScreen)


async def test_a_dataset_files_reading_shows_its_progress_under_the_field(demo_root):
    # the check reads every clip; the field says how far it has got, then gives the verdict
    from ltx_wizard.tui.screens.paths.checks import ClipsProgress
    from tests.tui.helpers import wait_until

    seen: list[str] = []
    app = make_app(demo_root, demo_data="clips")
    async with app.run_test(
        size=(120, 40), message_hook=lambda m: seen.append(m.text) if isinstance(m, ClipsProgress) else None
    ) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await wait_until(
            pilot, lambda: isinstance(app.screen, PathsScreen) and app.screen._checked is not None
        )
        assert any(text.startswith("reading clips: ") and text.endswith(" of 4") for text in seen)
        verdict = str(app.screen.query_one("#field-data_root .field-status").render())
        assert not verdict.startswith("…") and "clip_02.mp4" in verdict  # the verdict replaced it
