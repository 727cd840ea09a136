"""Hostile values typed into the TUI's fields (issue 43, Deliver 3): a 5,000-character path, a
300-character folder name, bytes that are not UTF-8, control characters, digits beyond a bound or
not ASCII. Each field gives one message naming it, on screen, through its own validation path and
the same core checks the command line uses (core/base/arguments.py); never a crash, never a hang.
One test per field family: the Paths form, the Prepare form, the GPU memory question, the
evaluation prompts and the caption spot check's instruction."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static, TextArea

from ltx_wizard.core.evaluation.prompts import IN_DIST, OUT_DIST, EvalPrompt, PromptSet
from ltx_wizard.tui.dialogs.eval_prompts import EvalPromptsDialog
from ltx_wizard.tui.dialogs.spot_check import SpotCheckDialog
from ltx_wizard.tui.dialogs.vram_ask import VramAskDialog
from ltx_wizard.tui.screens.paths import PathsScreen
from ltx_wizard.tui.screens.prepare import PrepareScreen
from tests.tui.helpers import FAST_SIM, fake_probe, make_app, settle, wait_until


class Typed:
    """The hostile paths, under the test's own folder (each is refused before anything opens it)."""

    def __init__(self, root: Path) -> None:
        self.root = f"{root}/"
        self.long = self.root + "a" * 5000  # over PATH_MAX
        self.name_300 = self.root + "b" * 300 + "/model.safetensors"  # one name over NAME_MAX
        self.not_utf8 = self.root + "caf\udce9.safetensors"  # b"caf\xe9" typed on a Latin-1 terminal
        self.control = self.root + "x\x1b]0;PWN\x07y"


SAID = {  # what each kind of message must say, beside the field's name
    "long": ("the path is too long", "4095"),
    "name_300": ("a name in the path is too long", "255"),
    "not_utf8": ("not UTF-8",),
    "control": ("control character",),
}


@pytest.fixture
def typed(tmp_path: Path) -> Typed:
    return Typed(tmp_path / "typed")


@pytest.fixture
def demo_root(tmp_path: Path) -> Path:
    """This test's own demo folder, as tests/tui/conftest.py makes it."""
    root = tmp_path / "demo"
    root.mkdir()
    return root


def _verdict(app, name: str) -> str:
    return str(app.screen.query_one(f"#field-{name}").query_one(".field-status").render())


def _one_line(text: str, *words: str) -> None:
    assert "\n" not in text and len(text) < 400, repr(text[:500])
    assert all(w in text for w in words), (words, text)
    assert not any(c in text for c in "\x1b\x07\udce9"), repr(text)


async def test_paths_fields_name_the_field_and_what_is_wrong(demo_root, typed):
    given = {
        "checkpoint": ("long", "checkpoint"),
        "text_encoder": ("name_300", "text encoder"),
        "data_root": ("not_utf8", "data root"),
        "trainer_root": ("control", "trainer-root"),
    }
    app = make_app(demo_root)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: isinstance(app.screen, PathsScreen))
        await settle(pilot)
        for name, (kind, _) in given.items():
            app.screen.query_one(f"#field-{name}").set_value(getattr(typed, kind))
        app.screen.query_one("#trigger").value = "caf\udce9"  # a dataset option: said under the data
        await wait_until(
            pilot, lambda: app.screen._checked is not None and app.screen._checked == app.screen._form()
        )
        for name, (kind, named) in given.items():
            verdict = _verdict(app, name)
            assert verdict.startswith("✗"), (name, verdict)
            if name != "data_root":
                _one_line(verdict, named, *SAID[kind])
        _one_line(_verdict(app, "data_root"), "lora trigger", "not UTF-8")
        app.screen.query_one("#field-data_root").set_value(typed.not_utf8)
        app.screen.query_one("#trigger").value = ""
        await wait_until(pilot, lambda: app.screen._checked == app.screen._form())
        _one_line(_verdict(app, "data_root"), "data root", "not UTF-8")
        await pilot.press("ctrl+n")  # refused: the first field named, nothing raised
        await settle(pilot)
        assert isinstance(app.screen, PathsScreen) and app.is_running


async def test_prepare_fields_name_the_field_and_what_is_wrong(demo_root, typed, monkeypatch):
    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "0")
    cases = [
        ("#input-source", typed.long, '"Your clips"', SAID["long"]),
        ("#input-source", typed.root + "c" * 300, '"Your clips"', SAID["name_300"]),
        ("#input-trainer", typed.name_300, '"LTX-2 trainer checkout"', SAID["name_300"]),
        ("#input-captions", typed.not_utf8, '"Your captions file"', SAID["not_utf8"]),
        ("#prep-run-name", "caf\udce9", '"run name"', SAID["not_utf8"]),
        ("#prep-run-name", "r" * 5000, "run name", ("longer than 200 bytes",)),
        ("#prep-holdout", "²", '"held out"', ("whole number from 0 to 1,000,000",)),
        ("#prep-holdout", "9" * 5000, '"held out"', ("at most 1,000,000",)),
        ("#prep-holdout", typed.root + "d" * 300, '"held out"', SAID["name_300"]),
        ("#prep-trigger", "caf\udce9", '"trigger word"', SAID["not_utf8"]),
    ]
    app = make_app(demo_root, demo_data="raw", **FAST_SIM)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: isinstance(app.screen, PrepareScreen))
        await settle(pilot)
        screen = app.screen
        source = screen.query_one("#input-source").value
        for selector, value, named, words in cases:
            field = screen.query_one(selector)
            before = field.value
            field.value = value
            screen.query_one("#prep-status", Static).update("")
            await pilot.press("ctrl+n")
            await wait_until(pilot, lambda: "Not prepared" in str(screen.query_one("#prep-status").render()))
            said = str(screen.query_one("#prep-status").render()).splitlines()[0]
            _one_line(said, named, *words)
            assert not screen.running and app.is_running
            field.value = before
        assert screen.query_one("#input-source").value == source
        url = screen.query_one("#prep-vllm-url")
        for value in ("http://" + "h" * 5000 + "/v1", "http://host:" + "9" * 5000 + "/v1"):
            url.value = value  # said under the field as it is typed; Prepare does not start
            await wait_until(pilot, lambda: "✗" in str(screen.query_one("#prep-url-verdict").render()))
            _one_line(str(screen.query_one("#prep-url-verdict").render()), "captioner server URL", "http://")
            await pilot.press("ctrl+n")
            await settle(pilot)
            assert not screen.running and app.is_running
            url.value = ""
            await wait_until(pilot, lambda: "✗" not in str(screen.query_one("#prep-url-verdict").render()))


async def test_the_gpu_memory_question_takes_ascii_digits_under_its_bound():
    app = make_app(probe_fn=fake_probe("NVIDIA GB10", None))
    async with app.run_test() as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: isinstance(app.screen, VramAskDialog))
        for value, words in (
            ("9" * 5000, ("GB per GPU", "at most 4,096")),
            ("٤٨", ("GB per GPU", "whole number")),
        ):
            app.screen.query_one("#gb").value = value
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, VramAskDialog)
            _one_line(str(app.screen.query_one("#gb-error").render()), *words)
        app.screen.query_one("#gb").value = "48"
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.state.assessment is not None)
        assert app.state.assessment.per_gpu_vram_gb == 48


async def test_evaluation_prompts_that_are_not_utf8_are_refused_naming_the_box_and_line():
    prompts = PromptSet(
        (EvalPrompt(IN_DIST, "a cat on a sofa", "dataset"), EvalPrompt(OUT_DIST, "a dog", "generic"))
    )
    got: list = []
    app = make_app(probe_fn=fake_probe(mib=81559))
    async with app.run_test(size=(110, 40)) as pilot:
        await settle(pilot)
        app.push_screen(EvalPromptsDialog(prompts), got.append)
        await wait_until(
            pilot, lambda: isinstance(app.screen, EvalPromptsDialog) and bool(app.screen.query(TextArea))
        )
        box = app.screen.query_one(f"#prompts-{OUT_DIST}", TextArea)
        box.text = "a dog\n[/] caf\udce9 at night"  # markup in it too: shown as typed, never parsed
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert isinstance(app.screen, EvalPromptsDialog) and got == []
        _one_line(
            str(app.screen.query_one("#prompts-error").render()), "Out-of-distribution, line 2", "not UTF-8"
        )
        box.text = "a dog\ncafé at night"
        await pilot.press("ctrl+s")
        await wait_until(pilot, lambda: bool(got))
        assert got[0][OUT_DIST] == ["a dog", "café at night"]


async def test_the_spot_check_instruction_must_be_utf8():
    got: list = []
    app = make_app(probe_fn=fake_probe(mib=81559))
    async with app.run_test(size=(110, 40)) as pilot:
        await settle(pilot)
        app.push_screen(SpotCheckDialog([("a.mp4", "A cat.")]), got.append)
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, SpotCheckDialog) and bool(app.screen.query("#spot-instruction")),
        )
        await pilot.press("i")
        app.screen.query_one("#spot-instruction").value = "less caf\udce9"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, SpotCheckDialog) and got == []
        shown = " ".join(str(n.message) for n in app._notifications)
        _one_line(shown, "the instruction", "not UTF-8")
        app.screen.query_one("#spot-instruction").value = "less background"
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(got))
        assert got == ["less background"]


@pytest.mark.parametrize(
    "typed", ["9" * 5000 + "x544x49", "٩٦٠x544x49", "²x544x49"], ids=["5000-digits", "arabic", "superscript"]
)
def test_the_bucket_fields_numbers_are_ascii_digits_under_a_bound(typed):
    """The Paths form's bucket field (and --resolution-buckets) reads its numbers through
    core/dataset/buckets.py parse_buckets: ASCII digits under MOST_SIDE, refused in one short line."""
    from ltx_wizard.core.base.errors import UsageError
    from ltx_wizard.core.dataset.buckets import parse_buckets

    with pytest.raises(UsageError) as refused:
        parse_buckets(typed)
    _one_line(refused.value.message, "resolution bucket", "65,536")
