"""Issue 42: a signal to `ltx-wizard setup` while its `uv sync` runs (a stand-in uv on PATH that
hangs in sync, with a child of its own, as uv's build processes are) leaves nothing of it alive
5 s after the wizard is gone."""

from __future__ import annotations

import sys

import pytest

from tests.setup_standins import make_remote, path_with

from .children import Wizard, next_start_reaps, signals, wait_for, wizard_env

HANGING_UV = r"""#!{python}
# stand-in uv: `uv sync` starts a child (a build step) and hangs, as a stalled download does
import os, subprocess, sys, time
from pathlib import Path
here = Path(__file__).resolve().parent
if sys.argv[1:2] == ["sync"]:
    print("Resolved 3 packages in 12ms", file=sys.stderr, flush=True)
    build = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    (here / "sync.pids").write_text(f"{{os.getpid()}} {{build.pid}}\n")
    time.sleep(300)
print("stand-in uv: unknown command " + " ".join(sys.argv[1:]), file=sys.stderr)
sys.exit(2)
"""


@pytest.fixture
def setup_argv(tmp_path, monkeypatch):
    """A fresh HOME, the trainer's remote a local git repository, the hanging uv on PATH."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    uv = folder / "uv"
    uv.write_text(HANGING_UV.format(python=sys.executable), encoding="utf-8")
    uv.chmod(0o755)
    remote = make_remote(tmp_path / "remote")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", path_with(tmp_path, folder))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    return ["setup", "--trainer-repo", str(remote), "--yes"]


def syncing(tmp_path, wizard: Wizard) -> None:
    wizard.child_up("sync")
    wait_for(lambda: (tmp_path / "bin" / "sync.pids").is_file(), 60, "uv sync's build child started")
    wizard.record()


@pytest.mark.parametrize("sig", signals())
def test_a_signal_to_setup_stops_uv_sync(box, tmp_path, setup_argv, sig):
    with Wizard(setup_argv, env=wizard_env(), cwd=tmp_path) as wizard:
        syncing(tmp_path, wizard)
        wizard.assert_leaves_nothing(sig)


def test_setup_killed_leaves_nothing_after_the_next_start(box, tmp_path, setup_argv):
    env = wizard_env()
    with Wizard(setup_argv, env=env, cwd=tmp_path) as wizard:
        syncing(tmp_path, wizard)
        next_start_reaps(wizard, setup_argv, env=env, cwd=tmp_path)
