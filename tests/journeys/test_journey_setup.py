"""Journey d (issue 40): setup from a fresh HOME with `--trainer-repo` a local git repository that
looks like an LTX-2 checkout, and a stand-in uv on PATH (tests/setup_standins.py), on the command
line and in the wizard. At every step what is printed or shown is checked against the disk: the
clone's origin and commit, the environment uv made, the setup log, the path printed last."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ltx_wizard.core.inputs import uv_tool
from ltx_wizard.core.inputs.checkout_caps import read_caps
from tests.setup_standins import advance_remote, git, make_remote, path_with, uv_calls, write_uv
from tests.tui.helpers import fake_probe, make_app, settle, wait_until

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def fresh(tmp_path):
    """A fresh HOME (no checkout, no cache), git alone on PATH beside a stand-in uv, and the
    trainer's remote: a local git repository holding a look-alike checkout."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    write_uv(tmp_path / "bin")
    return {
        "home": home,
        "remote": make_remote(tmp_path / "remote"),
        "bin": tmp_path / "bin",
        "path": path_with(tmp_path, tmp_path / "bin"),
        "git": str(tmp_path / "git-only-bin" / "git"),
    }


def _setup(fresh, *args: str, answers: str = "") -> subprocess.CompletedProcess[str]:
    """`ltx-wizard setup ...` as a user runs it, in its own process."""
    env = dict(os.environ, HOME=str(fresh["home"]), PATH=fresh["path"], PYTHONPATH=str(ROOT))
    env.pop("XDG_CACHE_HOME", None)
    return subprocess.run(
        [sys.executable, "-m", "ltx_wizard", "setup", *args],
        input=answers,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def test_cli_setup_with_no_one_to_answer_names_yes_and_exits_2(fresh):
    """The README's exit 2: an answer a command cannot ask for without a terminal names --yes."""
    remote, checkout = fresh["remote"], fresh["home"] / "LTX-2"
    asked = _setup(fresh, "--trainer-repo", str(remote), answers="")
    assert asked.returncode == 2 and not checkout.exists()
    assert "--yes" in asked.stderr.splitlines()[-1]


def _head(repo: Path) -> str:
    return git("rev-parse", "HEAD", cwd=repo).strip()


def _assert_clone_of(checkout: Path, remote: Path) -> None:
    assert git("remote", "get-url", "origin", cwd=checkout).strip() == str(remote)
    assert _head(checkout) == _head(remote)


def test_cli_setup_from_a_local_repository(fresh):
    remote, checkout = fresh["remote"], fresh["home"] / "LTX-2"
    # 1. Asked, answered no: nothing is written, and the clone's command is printed in full.
    asked = _setup(fresh, "--trainer-repo", str(remote), answers="n\n")
    assert asked.returncode == 130 and asked.stdout == ""  # a no is a stop by the user (README)
    assert f"git clones {remote} into {checkout}" in asked.stderr
    assert "size:  about" in asked.stderr and "(the repository on disk)" in asked.stderr
    assert "declined" in asked.stderr and not checkout.exists()
    runs = next(line for line in asked.stderr.splitlines() if "runs:" in line and " clone " in line)
    printed = runs.split("runs:", 1)[1].strip()
    assert printed == shlex.join([fresh["git"], "clone", "--progress", str(remote), str(checkout)])
    # 2. The printed command runs as printed, and clones that repository there.
    subprocess.run(shlex.split(printed), check=True, capture_output=True, env=dict(os.environ))
    _assert_clone_of(checkout, remote)
    shutil.rmtree(checkout)
    # 3. With --yes the wizard clones and syncs it itself; what it prints is what is on disk.
    done = _setup(fresh, "--trainer-repo", str(remote), "--yes")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(checkout)  # stdout: the checkout's path alone
    _assert_clone_of(checkout, remote)
    uv = fresh["bin"] / "uv"
    calls = uv_calls(fresh["bin"])
    assert [c["argv"] for c in calls] == [["sync"], ["run", "python", "-c", "import ltx_trainer"]]
    assert {c["cwd"] for c in calls} == {str(checkout)}
    assert (checkout / ".venv").is_dir() and (checkout / "uv.lock").is_file()
    loads = read_caps(checkout).loads()
    assert f"Ready: uv {uv}; trainer checkout {checkout} synced ({loads})" in done.stderr
    log = Path(next(line for line in done.stderr.splitlines() if line.startswith("Setup log: "))[11:])
    assert log.parent == fresh["home"] / ".cache" / "ltx-wizard"
    text = log.read_text()
    assert f"$ {printed}" in text and f"$ {uv} sync    (in {checkout})" in text
    assert text.count("(exit 0") == 3  # the clone, uv sync and the import check
    # 4. Run again: nothing is missing, nothing is offered, the same checkout is printed.
    again = _setup(fresh, "--trainer-repo", str(remote), "--yes")
    assert again.returncode == 0 and again.stdout.strip() == str(checkout)
    assert "Do it?" not in again.stderr and len(uv_calls(fresh["bin"])) == 2


def _offline(url: str) -> bytes:
    raise OSError(f"no network in tests: {url}")


def _offer(app) -> str:
    return str(app.screen.query_one("#setup-offer").render())


async def test_tui_setup_from_a_local_repository(fresh, monkeypatch):
    remote, checkout = fresh["remote"], fresh["home"] / "LTX-2"
    monkeypatch.setenv("HOME", str(fresh["home"]))
    monkeypatch.setenv("PATH", fresh["path"])
    monkeypatch.setattr(uv_tool, "own_scripts_dir", lambda: fresh["home"] / "no-wizard-env")
    # `ltx-wizard --trainer-repo REMOTE`: the flag through the CLI's own parser (helpers.make_app)
    app = make_app(
        probe_fn=fake_probe("NVIDIA H100 80GB HBM3", 81559),
        first_run_screens=True,
        trainer_repo=str(remote),
        setup_survey={"fetch": _offline},
    )
    assert app.options.trainer_repo == str(remote)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await wait_until(
            pilot,
            lambda: type(app.screen).__name__ == "SetupScreen" and "Clone the LTX-2 trainer" in _offer(app),
        )
        shown = _offer(app)
        assert f"What: git clones {remote} into {checkout}" in shown  # not GitHub
        assert (
            f"Runs: {shlex.join([fresh['git'], 'clone', '--progress', str(remote), str(checkout)])}" in shown
        )
        assert not checkout.exists()  # nothing before the yes
        await pilot.press("y")
        await wait_until(pilot, lambda: "uv sync" in _offer(app))
        _assert_clone_of(checkout, remote)
        assert f"in {checkout}" in _offer(app)
        # the size is read from the clone now there: it ships no uv.lock, and the offer says so
        assert not (checkout / "uv.lock").exists()
        assert f"Size: not known: {checkout} has no uv.lock to read it from" in _offer(app)
        await pilot.press("y")
        await wait_until(pilot, lambda: not app.screen.query_one("#continue").disabled)
        done = _offer(app)
        assert "clone: done" in done and "sync: done (uv sync, the trainer imports)" in done
        log = Path(done.split("Setup log: ", 1)[1].strip())
        assert log == app.screen.log_file and log.is_file()
        assert f"git clone --progress {remote} {checkout}" in log.read_text()
        assert {c["cwd"] for c in uv_calls(fresh["bin"])} == {str(checkout)}
        assert (checkout / ".venv").is_dir()
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "IntentScreen")
        assert app.state.request.trainer_root == checkout  # the next screens use this checkout


def _setup_screen(fresh, monkeypatch, repo: Path):
    """The wizard as `ltx-wizard --trainer-repo REPO` starts it, on its Setup screen."""
    monkeypatch.setenv("HOME", str(fresh["home"]))
    monkeypatch.setenv("PATH", fresh["path"])
    monkeypatch.setattr(uv_tool, "own_scripts_dir", lambda: fresh["home"] / "no-wizard-env")
    return make_app(
        probe_fn=fake_probe("NVIDIA H100 80GB HBM3", 81559),
        first_run_screens=True,
        trainer_repo=str(repo),
        setup_survey={"fetch": _offline},
    )


async def test_tui_a_failed_clone_is_not_called_done(fresh, monkeypatch, tmp_path):
    """Issue 41: "Setup done." stood above "clone: failed … sync: skipped"."""
    app = _setup_screen(fresh, monkeypatch, tmp_path / "no-such-repo")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: "Clone the LTX-2 trainer" in _offer(app))
        await pilot.press("y")
        await wait_until(pilot, lambda: not app.screen.query_one("#continue").disabled)
        done = _offer(app)
        assert "clone: failed" in done and "sync: skipped" in done
        assert done.startswith("Setup not done: clone failed; sync skipped.")
        assert "Setup done." not in done and not (fresh["home"] / "LTX-2").exists()


async def test_tui_a_checkout_from_before_the_config_rename_is_offered_git_pull(fresh, monkeypatch, tmp_path):
    """Issue 41: a clone from before 2026-06-17 was "not an LTX-2 checkout", no pull offered."""
    remote = make_remote(tmp_path / "old-remote", layout="1.0", before_rename=True)
    checkout = fresh["home"] / "LTX-2"
    git("clone", "-q", str(remote), str(checkout))
    advance_remote(remote, "1.2")
    app = _setup_screen(fresh, monkeypatch, remote)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: "Update the trainer checkout (git pull)" in _offer(app))
        found = str(app.screen.query_one("#setup-found").render())
        assert "not an LTX-2 checkout" not in found
        assert "is an LTX-2 checkout from before 2026-06-17 (ltx-core 1.0.0)" in _offer(app)
        assert not (checkout / "packages/ltx-trainer/configs/t2v_lora.yaml").exists()  # before the yes
        await pilot.press("y")
        await wait_until(pilot, lambda: "uv sync" in _offer(app))
        assert _head(checkout) == _head(remote)
        await pilot.press("y")
        await wait_until(pilot, lambda: not app.screen.query_one("#continue").disabled)
        done = _offer(app)
        assert done.startswith("Setup done.") and "pull: done" in done and "sync: done" in done
        assert (checkout / "packages/ltx-trainer/configs/t2v_lora.yaml").is_file()
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "IntentScreen")
        assert app.state.request.trainer_root == checkout
