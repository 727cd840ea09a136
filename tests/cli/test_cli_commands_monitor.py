"""`ltx-wizard commands RUN` (what the wizard ran, as lines to run by hand) and `ltx-wizard monitor
RUN [--read-only]` (the wizard opened on RUN's Monitor), as the command line parses them."""

from __future__ import annotations

from ltx_wizard import cli
from ltx_wizard.cli import main
from ltx_wizard.core.io.commands_file import read_commands, record_into
from tests.ran_children import ran
from tests.monitor_runs import make_run, sample_log


def test_commands_prints_each_command_under_a_comment_line(tmp_path, capsys):
    run = make_run(tmp_path, sample_log("ok_single_gpu_cols250"))
    assert main(["commands", str(run)]) == 0
    assert capsys.readouterr().out.startswith("# no commands recorded in ")
    undo = record_into(lambda: run)
    try:
        ran(["sh", "-c", "exit 7"], cwd=run)
    finally:
        undo()
    (command,) = read_commands(run)
    assert main(["commands", str(run)]) == 0
    comment, line = capsys.readouterr().out.splitlines()
    assert comment.startswith("# ") and comment.endswith(": exit 7, " + command.took)
    assert line == f"cd {run} && sh -c 'exit 7'"


def test_commands_of_a_folder_that_is_no_run_is_exit_2(tmp_path, capsys):
    assert main(["commands", str(tmp_path)]) == 2
    assert "is not a run folder" in capsys.readouterr().err


class _App:
    """What main() needs of an App: the options it was built with, kept for the test."""

    built: list = []

    def __init__(self, args, **overrides) -> None:
        from ltx_wizard.tui.options import WizardOptions

        self.options = WizardOptions.from_args(args, **overrides)
        self.return_code = 0
        _App.built.append(self)

    def run(self):
        return 0

    def after_exit(self):
        return [], []


def test_monitor_opens_the_wizard_on_the_runs_monitor(tmp_path, monkeypatch):
    run = make_run(tmp_path, sample_log("ok_single_gpu_cols250"))
    monkeypatch.setattr(cli, "make_app", _App)
    _App.built.clear()
    assert main(["monitor", str(run)]) == 0
    assert main(["monitor", str(run), "--read-only"]) == 0
    plain, forced = (app.options for app in _App.built)
    assert plain.run_dir == forced.run_dir == str(run) and plain.open_monitor and forced.open_monitor
    assert not plain.read_only and forced.read_only


def test_monitor_of_a_folder_that_is_no_run_is_exit_2(tmp_path, capsys):
    assert main(["monitor", str(tmp_path)]) == 2
    assert "is not a run folder" in capsys.readouterr().err
