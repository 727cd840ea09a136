"""core/io/commands_file.py: each recorded command renders as a shell line that reruns it by hand
(the same effect, from any folder, in a shell without the wizard's environment), and the file is
read back tolerating only a line torn by a crash."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.io.commands_file import quote, read_commands, record_into
from ltx_wizard.core.io.run_folder import COMMANDS_LOG
from tests.ran_children import ran

# writes what it was given (its folder, an environment entry, a secret, its arguments) to a file
_SCRIPT = (
    "import json, os, sys; json.dump({'cwd': os.getcwd(), 'x': os.environ.get('LTX_X'), "
    "'token': os.environ.get('HF_TOKEN'), 'gone': os.environ.get('LTX_GONE'), 'argv': sys.argv[1:]}, "
    "open('effect.json', 'w'))"
)


def _by_hand(line: str, env: dict[str, str], cwd: Path) -> None:
    """The line as a user pastes it into bash (never through the wizard's shell=...)."""
    done = subprocess.run(["bash", "-c", line], env=env, cwd=cwd, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_the_rendered_line_reruns_the_command_with_the_same_effect(tmp_path, monkeypatch):
    run, work, elsewhere = tmp_path / "run", tmp_path / "it's here", tmp_path / "elsewhere"
    for folder in (run / "logs", work, elsewhere):
        folder.mkdir(parents=True)
    monkeypatch.setenv("LTX_GONE", "the wizard took it out")
    env = {k: v for k, v in os.environ.items() if k != "LTX_GONE"}
    env |= {"LTX_X": "two words; $HOME `x`", "HF_TOKEN": "hf_abc"}
    argv = [sys.executable, "-c", _SCRIPT, "a b", "it's", "$(echo no)", "\x1b[31mred"]
    undo = record_into(lambda: run)
    try:
        assert ran(argv, env=env, cwd=work) == 0
    finally:
        undo()
    first = (work / "effect.json").read_text()
    (work / "effect.json").unlink()
    (command,) = read_commands(run)
    assert "\x1b" not in command.line and "hf_abc" not in command.line  # one safe line, no secret
    # the user's shell: the secret in their own environment, LTX_GONE still set, another folder
    _by_hand(command.line, {**os.environ, "HF_TOKEN": "hf_abc"}, elsewhere)
    assert (work / "effect.json").read_text() == first
    assert not (elsewhere / "effect.json").exists()


@pytest.mark.parametrize(
    "word", ["plain", "a b", "it's", "x\x1b]0;title\x07y", "n\nl", "c1\x85", "bidi\u202e"]
)
def test_every_word_is_quoted_to_itself_and_shown_on_one_safe_line(word, tmp_path):
    quoted = quote(word)
    assert "\n" not in quoted and "\x1b" not in quoted and "\u202e" not in quoted
    done = subprocess.run(["bash", "-c", f"printf %s {quoted}"], capture_output=True, timeout=60)
    assert done.stdout == word.encode()


def test_a_torn_last_line_is_skipped_and_a_damaged_one_refused(tmp_path):
    run = tmp_path / "run"
    (run / "logs").mkdir(parents=True)
    undo = record_into(lambda: run)
    try:
        ran(["true"])
    finally:
        undo()
    path = COMMANDS_LOG.path(run)
    good = path.read_text()
    path.write_text(good + '{"version":1,"id":"ab')  # the wizard killed mid-write
    assert [c.outcome for c in read_commands(run)] == ["exit 0"]
    path.write_text('{"version":1,"id":"x","event":"start","at":1.0,"colour":"red"}\n' + good)
    with pytest.raises(UsageError, match=r"command log .*commands.jsonl is damaged \(unknown field"):
        read_commands(run)


def test_a_run_without_a_log_has_no_commands(tmp_path):
    assert read_commands(tmp_path) == []
