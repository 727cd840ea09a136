"""Issue 43, Why 2 and Deliver 5 for setup's children: Ctrl-C during `git clone` (whose download
helper keeps writing into the checkout) ends setup with 130 and leaves nothing writing; a hung
`uv sync` (with a build child of its own) ends on SIGINT, SIGTERM and SIGHUP; a git step can never
wait on the wizard's stdin or a credential prompt (`--trainer-repo fd::17` ends); a step with no
output for a while says what it waits on."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ltx_wizard.core.proc.table import pid_alive
from ltx_wizard.core.setup import run_step as run_step_module
from ltx_wizard.core.setup.run_step import Step, run_step
from ltx_wizard.core.setup.offer_session import step_env
from tests.setup_standins import make_remote, path_with

ROOT = Path(__file__).resolve().parents[2]

# stand-in git: `clone` starts a download helper (as git-remote-https and index-pack are) that
# writes into the checkout for a minute, then hangs itself; anything else goes to the real git.
CLONING_GIT = r"""#!{python}
import os, subprocess, sys, time
from pathlib import Path
args = sys.argv[1:]
if "clone" in args:
    dest = Path(args[-1])
    dest.mkdir(parents=True, exist_ok=True)
    helper = subprocess.Popen([sys.executable, "-c",
        "import sys, time\nfor i in range(3000):\n"
        "    open(sys.argv[1] + '/pack-%d' % (i % 5), 'w').write(str(i))\n    time.sleep(0.02)\n",
        str(dest)])
    Path({pids!r}).write_text(f"{{os.getpid()}} {{helper.pid}}\n")
    print("Cloning into '%s'..." % dest, file=sys.stderr, flush=True)
    time.sleep(300)
os.execv("/usr/bin/git", ["git"] + args)
"""

HANGING_UV = r"""#!{python}
import os, subprocess, sys, time
from pathlib import Path
if sys.argv[1:2] == ["sync"]:
    print("Resolved 3 packages in 12ms", file=sys.stderr, flush=True)
    build = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    Path({pids!r}).write_text(f"{{os.getpid()}} {{build.pid}}\n")
    time.sleep(300)
sys.exit(2)
"""


def _wait(condition, limit_s: float, what: str) -> None:
    deadline = time.monotonic() + limit_s
    while not condition():
        assert time.monotonic() < deadline, f"{what}: not within {limit_s} s"
        time.sleep(0.05)


def _bounded(fn, limit_s: float):
    """fn on a thread; fails when it is still running after limit_s (a hang, not a wait)."""
    out: list[object] = []
    worker = threading.Thread(target=lambda: out.append(fn()), daemon=True)
    worker.start()
    worker.join(limit_s)
    assert not worker.is_alive(), f"still running after {limit_s} s"
    return out[0]


def _standin(folder: Path, name: str, text: str, pids: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text.format(python=sys.executable, pids=str(pids)), encoding="utf-8")
    path.chmod(0o755)


def _setup(tmp_path: Path, bin_dir: Path, *, clone_done: bool) -> tuple[subprocess.Popen, Path]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    remote = make_remote(tmp_path / "remote")
    root = tmp_path / "LTX-2"
    if clone_done:
        subprocess.run(["git", "clone", "-q", str(remote), str(root)], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CACHE_HOME", "VIRTUAL_ENV")}
    env.update(HOME=str(home), PATH=f"{bin_dir}{os.pathsep}{path_with(tmp_path)}", PYTHONPATH=str(ROOT))
    argv = [sys.executable, "-m", "ltx_wizard", "setup", "--trainer-root", str(root)]
    argv += ["--trainer-repo", str(remote), "--yes"]
    proc = subprocess.Popen(argv, env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return proc, root


def _pids(path: Path) -> list[int]:
    return [int(p) for p in path.read_text().split()]


def _assert_all_end(proc: subprocess.Popen, pids: list[int], sig: int, code: int) -> str:
    proc.send_signal(sig)
    try:
        out = proc.communicate(timeout=60)[0].decode("utf-8", "replace")
    finally:
        if proc.poll() is None:
            proc.kill()
    try:
        _wait(lambda: not any(pid_alive(p) for p in pids), 5, "a child outlived setup")
    finally:
        for pid in pids:
            if pid_alive(pid):
                os.kill(pid, signal.SIGKILL)
    assert proc.returncode == code, out
    return out


def test_ctrl_c_during_clone_ends_setup_and_its_download_helper(tmp_path):
    pids = tmp_path / "clone.pids"
    _standin(tmp_path / "bin", "git", CLONING_GIT, pids)
    proc, root = _setup(tmp_path, tmp_path / "bin", clone_done=False)
    _wait(pids.is_file, 120, "the clone started")
    _wait(lambda: (root / "pack-4").exists(), 60, "the helper writes")
    # the helper is gone (checked above), so nothing writes into the checkout afterwards
    out = _assert_all_end(proc, _pids(pids), signal.SIGINT, 130)
    assert "internal error" not in out and "Traceback" not in out


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=["INT", "TERM", "HUP"])
def test_a_hung_uv_sync_ends_with_setup(tmp_path, sig):
    pids = tmp_path / "sync.pids"
    _standin(tmp_path / "bin", "uv", HANGING_UV, pids)
    proc, _ = _setup(tmp_path, tmp_path / "bin", clone_done=True)
    _wait(pids.is_file, 120, "uv sync started")
    _assert_all_end(proc, _pids(pids), sig, 130 if sig == signal.SIGINT else 128 + sig)


def test_a_git_step_never_waits_on_stdin_or_a_prompt(tmp_path):
    env = step_env()
    assert env["GIT_TERMINAL_PROMPT"] == "0"
    # a step's stdin is /dev/null: reading it ends at once, whatever the wizard's stdin is
    reader = Step(argv=(sys.executable, "-c", "import sys; print(repr(sys.stdin.read()))"))
    assert run_step(reader, tmp_path / "setup.log", env=env).tail == ("''",)
    # `fd::17` reads a descriptor nobody writes: without the allowed transports git waits forever
    step = Step(argv=("git", "clone", "fd::17", str(tmp_path / "dest")), label="git clone", progress="git")
    start = time.monotonic()
    result = _bounded(lambda: run_step(step, tmp_path / "setup.log", env=env), 60)
    assert result.returncode != 0 and time.monotonic() - start < 60
    assert "transport 'fd' not allowed" in " ".join(result.tail)


def test_a_quiet_step_says_what_it_waits_on(tmp_path, monkeypatch):
    monkeypatch.setattr(run_step_module, "QUIET_S", 0.3)
    code = "import sys, time; print('start', flush=True); time.sleep(1.5); print('end')"
    step = Step(argv=(sys.executable, "-c", code, "https://example.invalid/LTX-2.git"), label="git clone")
    seen: list[str] = []
    result = run_step(step, tmp_path / "setup.log", on_line=lambda progress, line: seen.append(line))
    assert result.ok and seen[0] == "start" and seen[-1] == "end"
    quiet = [line for line in seen if "no output" in line]
    assert quiet and "git clone" in quiet[0] and "https://example.invalid/LTX-2.git" in quiet[0]
    assert "no output" in (tmp_path / "setup.log").read_text()
