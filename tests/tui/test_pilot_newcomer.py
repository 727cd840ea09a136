"""The first-time user's path inside the wizard: F1 help, the plan read to its end, warnings
before a doomed start, the gate's Abort line, and what is printed on the way out."""

from __future__ import annotations

import inspect

from textual.containers import VerticalScroll

from ltx_wizard.core.tuning.results import AutotuneSummary, TrialResult
from textual.screen import Screen

from ltx_wizard.tui import dialogs, screens
from ltx_wizard.tui.dialogs.confirm import ConfirmDialog
from ltx_wizard.tui.dialogs.gate import GateDialog
from ltx_wizard.tui.dialogs.help import GENERIC, HelpDialog, help_for_class
from ltx_wizard.tui.screens.done import DoneScreen
from tests.tui.helpers import RUN_NAME, make_app, settle, to_summary


async def test_f1_opens_help_for_this_screen_and_the_key_list_is_one_key_away(demo_root):
    app = make_app(demo_root)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpDialog)
        assert app.screen.screen_name == "ProbeScreen"
        assert "CUDA_VISIBLE_DEVICES" in app.screen.body
        await pilot.press("k")  # Textual's generic key list
        await settle(pilot)
        assert type(app.screen).__name__ == "ProbeScreen" and app.screen.query("HelpPanel")
        await pilot.press("ctrl+n")
        await settle(pilot)
        await pilot.press("f1")  # another screen, another text
        await pilot.pause()
        assert app.screen.screen_name == "PathsScreen" and "process_dataset.py" in app.screen.body
        await pilot.press("escape")
        await pilot.pause()
        assert type(app.screen).__name__ == "PathsScreen"


def _screen_classes(package) -> dict[str, type]:
    """The Screen classes (dialogs included) that `package`'s modules define."""
    import importlib
    import pkgutil

    found = {}
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for name, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__ and issubclass(cls, Screen):
                found[name] = cls
    return found


# Dialogs whose F1 shows the generic help: a list to pick from, prompts to edit, pictures to see,
# the help itself, and the base every dialog is built on.
GENERIC_HELP_DIALOGS = {"ChoiceDialog", "EvalPromptsDialog", "SamplesDialog", "HelpDialog", "OnceModal"}


def test_every_screen_and_dialog_has_its_own_help():
    found = _screen_classes(screens)
    assert {"ProbeScreen", "AutotuneScreen", "MonitorScreen"} <= set(found)
    for name, cls in found.items():
        title, body = help_for_class(cls)
        assert (title, body) != GENERIC and "{" not in body, name  # placeholders filled
    found = _screen_classes(dialogs)
    assert set(found) >= GENERIC_HELP_DIALOGS | {"GateDialog", "ConfirmDialog", "DownloadDialog"}
    for name, cls in found.items():
        assert (help_for_class(cls) == GENERIC) == (name in GENERIC_HELP_DIALOGS), name


async def test_plan_preview_scrolls_to_its_last_line_by_keyboard(demo_root):
    app = make_app(demo_root, at="summary")
    async with app.run_test(size=(100, 30)) as pilot:
        await to_summary(pilot)
        body = app.screen.query_one("#body", VerticalScroll)
        preview = app.screen.query_one("#plan-preview")
        assert preview.size.height > 30  # the whole plan.md, no 30-line cap
        assert app.focused is app.screen.query_one("#approve")  # keys work from the button
        await pilot.press("pagedown")
        await pilot.pause()
        assert body.scroll_y > 0
        await pilot.press("end")
        await pilot.pause()
        assert body.scroll_y == body.max_scroll_y
        # The end of plan.md now sits inside the visible part of the screen.
        bottom = preview.region.y + preview.region.height
        assert bottom <= body.region.y + body.region.height


async def _done(pilot) -> None:
    await to_summary(pilot)
    await pilot.press("s")
    await settle(pilot)
    assert isinstance(pilot.app.screen, DoneScreen)


async def test_start_training_after_an_oom_baseline_warns_and_suggests(demo_root):
    app = make_app(demo_root, at="summary")
    async with app.run_test(size=(120, 40)) as pilot:
        await _done(pilot)
        app.state.summary = AutotuneSummary(
            trials=[TrialResult(index=1, change="baseline", outcome="oom", reason="CUDA out of memory")],
            winner=None,
            config_patched=False,
        )
        await pilot.press("t")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        assert "ran out of GPU memory" in app.screen.question
        assert "process_dataset.py" in app.screen.question and "--resolution-buckets" in app.screen.question
        assert app.screen.yes_label == "Start anyway"
        await pilot.press("n")


async def test_quitting_prints_run_folder_launch_command_and_log(demo_root):
    app = make_app(demo_root, at="summary")
    run = demo_root / "ltx-trainings" / RUN_NAME
    async with app.run_test(size=(120, 40)) as pilot:
        await _done(pilot)
        await pilot.press("q")
    out, err = app.after_exit()
    assert out[:3] == [
        f"Run folder: {run}",
        f"Start training: bash {run}/launch.sh",
        f"Log: {run}/logs/train.log",
    ]
    # autotune was skipped: said, with the command; then how to come back, each with the
    # simulated GPUs the run was planned on (a bare `ltx-wizard autotune` would probe real ones)
    assert out[3] == (f"Not tuned yet; to tune it first: ltx-wizard autotune {run} --simulate a6000")
    assert out[4] == (
        f"Come back to it: ltx-wizard --simulate a6000 --run-dir {run} or ltx-wizard status {run}"
    )
    assert err == [] and demo_root.exists()  # the tests' fixed demo folder is not ours to remove


async def test_gate_abort_prints_why_and_what_to_do():
    app = make_app(simulate="rtx4090")
    async with app.run_test() as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert isinstance(app.screen, GateDialog)
        await pilot.press("a")
        await pilot.pause()
    assert app.return_code == 3
    out, err = app.after_exit()
    assert out == [] and len(err) == 1
    assert err[0].startswith("ltx-wizard: stopped at the minimum gate (24 GB") and "Try anyway" in err[0]


async def test_demo_removes_its_temporary_folder_on_exit():
    app = make_app(demo=True)  # no demo_root: the app makes its own temporary folder
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        root = app.demo.root
        assert root.is_dir()
    out, _ = app.after_exit()
    assert not root.exists() and f"Demo: its temporary folder {root} was removed." in out
