"""core/proc/command_log.py: every child started through spawn.py (Popen, asyncio, ChildProcess,
run_captured) is recorded in the session's run folder, its start and its end joined by an id, with
only the environment the wizard set, secrets masked; nothing is recorded outside a session, and a
child started before the session has a run folder lands in the first one it opens."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from ltx_wizard.core.io.commands_file import read_commands, record_into
from ltx_wizard.core.io.run_folder import COMMANDS_LOG
from ltx_wizard.core.proc.child import ChildProcess
from ltx_wizard.core.proc.spawn import run_captured, spawn, spawn_async
from tests.ran_children import let_go, ran


@pytest.fixture
def run(tmp_path):
    folder = tmp_path / "run"
    (folder / "logs").mkdir(parents=True)
    undo = record_into(lambda: folder)
    yield folder
    undo()


def _lines(run: Path) -> list[dict]:
    return [json.loads(x) for x in COMMANDS_LOG.path(run).read_text().splitlines()]


def test_a_popen_child_is_recorded_with_only_what_the_wizard_set_and_its_exit(run, tmp_path, monkeypatch):
    monkeypatch.setenv("KEPT", "as is")
    monkeypatch.setenv("DROPPED", "x")
    env = {k: v for k, v in os.environ.items() if k != "DROPPED"}
    env |= {"LTX_X": "a b", "HF_TOKEN": "hf_secret", "KEPT": "as is"}
    child = spawn(["sh", "-c", "exit 3"], env=env, cwd=tmp_path)
    assert child.popen.wait() == 3
    let_go(child)
    start, end = _lines(run)
    assert start["event"] == "start" and end == {
        "version": 1,
        "id": start["id"],
        "event": "end",
        "at": end["at"],
        "exit_code": 3,
    }
    assert start["argv"] == ["sh", "-c", "exit 3"] and start["cwd"] == str(tmp_path)
    assert start["env"] == {"HF_TOKEN": "", "LTX_X": "a b"}  # KEPT unchanged; no tags of ours
    assert start["masked"] == ["HF_TOKEN"] and start["unset"] == ["DROPPED"]
    assert start["run"] == str(run.absolute()) and start["pid"] == child.popen.pid
    assert "hf_secret" not in COMMANDS_LOG.path(run).read_text()
    assert start["at"] <= end["at"]


async def test_asyncio_children_are_recorded_even_when_they_end_at_once_or_by_a_signal(run):
    quick = await spawn_async(["true"])
    await quick.proc.wait()
    let_go(quick)
    slow = await spawn_async(["sleep", "30"])
    slow.proc.terminate()
    await slow.proc.wait()
    let_go(slow)
    commands = read_commands(run)
    assert [(c.start.argv, c.outcome) for c in commands] == [
        (("true",), "exit 0"),
        (("sleep", "30"), "SIGTERM"),
    ]
    assert commands[1].end is not None and commands[1].end.signal == "SIGTERM" and not commands[1].ok


async def test_a_streamed_child_is_recorded_with_the_environment_it_forces(run):
    child = ChildProcess([sys.executable, "-c", "print('hi')"], env={"LTX_T": "1"}, idle_timeout_s=None)
    result = await child.run()
    (command,) = read_commands(run)
    assert command.start.pid == result.pid and command.outcome == "exit 0"
    assert command.start.env["LTX_T"] == "1"
    # what child.py forces, where it changes ours (the suite may set PYTHONUNBUFFERED already)
    assert command.start.env.get("COLUMNS", os.environ.get("COLUMNS")) == "250"


def test_a_short_question_is_recorded_too(run):
    done = run_captured(
        [sys.executable, "-c", "import sys; print(sys.stdin.read())"], stdin_text="x", timeout_s=60
    )
    assert done.returncode == 0 and done.stdout == "x\n"
    (command,) = read_commands(run)
    assert command.start.argv[0] == sys.executable and command.outcome == "exit 0"


def test_outside_a_session_nothing_is_recorded(tmp_path):
    (tmp_path / "logs").mkdir()
    ran(["true"], cwd=tmp_path)
    assert not COMMANDS_LOG.path(tmp_path).exists()


def test_a_child_before_the_run_folder_lands_in_the_first_one_the_session_opens(tmp_path):
    folder: list[Path] = []
    undo = record_into(lambda: folder[0] if folder else None)
    try:
        ran(["git", "--version"])  # setup's git, before any plan
        run = tmp_path / "run"
        (run / "logs").mkdir(parents=True)
        folder.append(run)
        ran(["true"])
    finally:
        undo()
    commands = read_commands(run)
    assert [c.start.argv[0] for c in commands] == ["git", "true"]
    assert all(c.start.run == str(run.absolute()) and c.end is not None for c in commands)


def test_a_log_that_cannot_be_written_never_stops_the_child(run):
    path = COMMANDS_LOG.path(run)
    path.mkdir()  # a folder where the file goes: every write fails
    assert ran(["sh", "-c", "exit 4"]) == 4


@pytest.mark.parametrize("name", ["WANDB_API_KEY", "HF_TOKEN", "MY_SECRET", "AWS_SECRET_ACCESS_KEY"])
def test_secret_looking_names_are_masked(run, name):
    ran(["true"], env={**os.environ, name: "s3cr3t"})
    (command,) = read_commands(run)
    assert command.start.masked == (name,) and command.start.env[name] == ""
    assert f'{name}="${name}"' in command.line


def test_two_threads_never_interleave_their_lines(run):
    import threading

    def starts() -> None:
        for _ in range(20):
            ran(["true"])

    threads = [threading.Thread(target=starts) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    commands = read_commands(run)
    assert len(commands) == 80 and all(c.outcome == "exit 0" for c in commands)


def test_asyncio_run_is_usable(run):  # the asyncio path outside pytest's loop too
    async def main() -> int | None:
        child = await spawn_async(["sh", "-c", "exit 5"])
        code = await child.proc.wait()
        let_go(child)
        return code

    assert asyncio.run(main()) == 5
    assert read_commands(run)[0].outcome == "exit 5"


def test_a_password_in_a_url_is_never_written(run):
    url = "https://me:ghp_secret@github.com/Lightricks/LTX-2.git"
    ran(["echo", url, "https://github.com/x"])
    (command,) = read_commands(run)
    assert command.start.argv[1:] == (
        "https://me:***@github.com/Lightricks/LTX-2.git",
        "https://github.com/x",
    )
    assert "ghp_secret" not in COMMANDS_LOG.path(run).read_text()


def test_these_tests_leave_no_child_in_the_registry():
    from ltx_wizard.core.proc import registry

    assert registry.live() == []
