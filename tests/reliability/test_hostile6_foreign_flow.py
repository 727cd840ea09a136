"""Foreign text the extended structure rule (tests/project/test_foreign_text.py, following names
and self fields) found shown raw: each now reaches the terminal without its escapes."""

from __future__ import annotations

from textual.widgets import OptionList

from ltx_wizard.commands.autotune import trial_lines
from ltx_wizard.core.inputs.discovery_rank import Candidate
from ltx_wizard.core.tuning.results import AutotuneSummary
from ltx_wizard.core.validation.form import ValidationForm
from ltx_wizard.core.validation.validation_media import MediaSlot
from ltx_wizard.tui.dialogs.pick import PickDialog
from ltx_wizard.tui.dialogs.spot_check import SpotCheckDialog
from ltx_wizard.tui.screens.prepare.asker import PrepareLine, ScreenAsker
from ltx_wizard.tui.widgets.validation_panel import ValidationPanel
from tests.tui.helpers import _result, fake_probe, make_app, settle, to_summary, wait_until

TITLE = "\x1b]0;PWNTITLE\x07"  # retitles the terminal
CLIPBOARD = "\x1b]52;c;cHduZWQ=\x07"  # writes the clipboard
CONTROLS = ("\x1b", "\x07", "\x9b", "\u202e")


async def test_pick_dialog_shows_a_found_file_without_its_escapes(tmp_path):
    """Discovery lists files on disk: a model file named with escapes is shown without them."""
    path = tmp_path / f"ltx-2{TITLE}.safetensors"
    found = Candidate(
        kind="checkpoint",
        path=path,
        usable=True,
        summary=f"19.0 B params{CLIPBOARD}",
        reason="newest\x9b\u202e",
    )
    app = make_app(probe_fn=fake_probe(mib=81559))
    async with app.run_test(size=(110, 30)) as pilot:
        await settle(pilot)
        app.push_screen(PickDialog("Found on disk: checkpoint", [found]))
        await wait_until(
            pilot, lambda: isinstance(app.screen, PickDialog) and bool(app.screen.query(OptionList))
        )
        option = app.screen.query_one(OptionList).get_option_at_index(0)
        shown = option.prompt.plain
        assert "ltx-2.safetensors" in shown and "19.0 B params" in shown and "newest" in shown
        assert not any(c in shown for c in CONTROLS), repr(shown)
        assert option.id == str(path)  # what is picked is the file itself, as it is named


def test_autotune_report_lines_drop_the_escapes_a_trial_reason_quotes():
    """A trial's reason quotes the trainer's output: printed by `autotune` without escapes."""
    crashed = _result(1, "baseline", "crash", None, None, False, reason=f"exit 1: {TITLE}boom{CLIPBOARD}")
    lines = trial_lines(AutotuneSummary(trials=[crashed], winner=None, config_patched=False))
    assert len(lines) == 1 and "exit 1: boom" in lines[0]
    assert not any(c in lines[0] for c in CONTROLS), repr(lines[0])


async def test_spot_check_dialog_shows_the_captions_without_their_escapes():
    """The captioner's answers, shown in full for the spot check: without escapes."""
    app = make_app(probe_fn=fake_probe(mib=81559))
    async with app.run_test(size=(110, 40)) as pilot:
        await settle(pilot)
        app.push_screen(
            SpotCheckDialog([(f"clips/a{TITLE}.mp4", f"A cat{CLIPBOARD} on a sofa.\nIt sleeps.")])
        )
        await wait_until(
            pilot, lambda: isinstance(app.screen, SpotCheckDialog) and bool(app.screen.query(".spot-caption"))
        )
        clip = str(app.screen.query_one(".spot-clip").render())
        caption = str(app.screen.query_one(".spot-caption").render())
        assert "clips/a.mp4" in clip and "A cat on a sofa." in caption and "It sleeps." in caption
        assert not any(c in clip + caption for c in CONTROLS), repr(clip + caption)


def test_the_prepare_screens_lines_are_cleaned_as_the_command_lines_are():
    """The Prepare screen's log quotes each spot-check caption: its say cleans it (a newline kept)."""

    class Screen:
        def __init__(self) -> None:
            self.posted: list = []

        def post_message(self, message) -> None:
            self.posted.append(message)

    screen = Screen()
    ScreenAsker(screen).say(f"spot check, a.mp4: A cat{TITLE}{CLIPBOARD}\nsleeps\u202e.")  # type: ignore[arg-type]
    [line] = screen.posted
    assert isinstance(line, PrepareLine) and line.text == "spot check, a.mp4: A cat\nsleeps."


async def test_the_validation_sections_verdict_is_shown_without_escapes(tmp_path):
    """The section's verdict may quote the recipe's YAML (plan's words): shown without escapes."""
    demo = tmp_path / "demo"
    demo.mkdir()
    app = make_app(demo)
    async with app.run_test(size=(110, 40)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "PathsScreen")
        await settle(pilot)
        slot = MediaSlot(sample=0, condition=0, key="video", kind="reference video", value="ref.mp4")
        panel = app.screen.query_one(ValidationPanel)
        panel.show(ValidationForm(slots=(slot,), error=f"validation.samples[0]: {TITLE}bad{CLIPBOARD} path"))
        await pilot.pause()
        shown = str(app.screen.query_one("#validation-status").render())
        assert "validation.samples[0]: bad path" in shown
        assert not any(c in shown for c in CONTROLS), repr(shown)


async def test_the_summary_shows_the_config_diff_and_a_refusal_without_escapes(tmp_path):
    """The diff quotes the checkout's shipped config, a refusal may quote a file: both cleaned."""
    from dataclasses import replace

    from ltx_wizard.tui.messages import PlanPrepared

    demo = tmp_path / "demo"
    demo.mkdir()
    app = make_app(demo, at="summary")
    async with app.run_test(size=(120, 40)) as pilot:
        await to_summary(pilot)
        screen = app.screen
        draft = replace(screen.draft, diff=f"-  name: shipped{TITLE}\n+  name: ours{CLIPBOARD}\n")
        screen.post_message(PlanPrepared(draft, None))

        def shown_diff() -> str:  # the Syntax the Static holds: its code as it will be drawn
            return getattr(screen.query_one("#config-diff").content, "code", "")

        await wait_until(pilot, lambda: "ours" in shown_diff())
        diff = shown_diff()
        assert "name: shipped" in diff and not any(c in diff for c in CONTROLS), repr(diff)
        screen.post_message(PlanPrepared(None, f"recipe t2v.yaml: bad key {TITLE}x{CLIPBOARD}"))
        await wait_until(pilot, lambda: "Cannot plan" in str(screen.query_one("#summary-head").render()))
        head = str(screen.query_one("#summary-head").render())
        assert "bad key x" in head and not any(c in head for c in CONTROLS), repr(head)


async def test_the_download_dialog_shows_the_hubs_refusal_without_escapes():
    """Why the Hub refuses a file is the Hub's words: shown without escapes."""
    from ltx_wizard.tui.dialogs.download import DownloadDialog, OffersReady

    class Offer:  # what the dialog reads of a core/inputs/model_download.py offer
        refusal = f"gated: {TITLE}accept the terms{CLIPBOARD} first"
        size_bytes = 5000

        def line(self) -> str:
            return "ltx-2.3-22b-dev.safetensors (5 kB)"

    app = make_app(probe_fn=fake_probe(mib=81559))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        dialog = DownloadDialog()
        app.push_screen(dialog)
        await wait_until(pilot, lambda: app.screen is dialog and bool(dialog.query("#dl-body")))
        dialog.post_message(OffersReady([Offer()], None))
        await wait_until(pilot, lambda: dialog.index == 0)
        body = str(dialog.query_one("#dl-body").render())
        assert "Not offered: gated: accept the terms first" in body
        assert not any(c in body for c in CONTROLS), repr(body)


def test_the_preprocess_screens_skipped_samples_are_shown_without_escapes():
    """The trainer's output names each sample it skipped: the screen shows them cleaned."""
    from ltx_wizard.tui.screens.preprocess import PreprocessScreen

    class Widget:
        def __init__(self) -> None:
            self.shown: list = []

        def update(self, *args, **kwargs) -> None:
            self.shown.append(args[0] if args else kwargs)

    widgets: dict[str, Widget] = {}

    class Screen:  # what _progress reads of its screen: its widgets by id
        def query_one(self, selector, _kind=None):
            return widgets.setdefault(selector, Widget())

    class Parser:  # what _progress reads of the trainer's output parser
        current = None
        skipped = [(f"clips/a{TITLE}.mp4", 12), (f"clips/b{CLIPBOARD}\u202e.mp4", 3)]

        def line(self) -> str:
            return "encoding"

    PreprocessScreen._progress(Screen(), Parser())  # type: ignore[arg-type]
    [shown] = widgets["#pp-log"].shown
    text = str(getattr(shown, "plain", shown))
    assert "skipped clips/a.mp4 (12 frames)" in text and "skipped clips/b.mp4 (3 frames)" in text
    assert not any(c in text for c in CONTROLS), repr(text)
