"""Issue 41, setup: what the wizard says about a checkout is read from the checkout as it is on
disk (uv.lock and .venv, the tier configs' names, uv.lock's wheels) and what the steps did."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.inputs.checkout import find_checkout, inspect_checkout
from ltx_wizard.core.setup import sizes
from ltx_wizard.core.setup.offer_session import Outcome, headline
from ltx_wizard.demo.lookalike_checkout import make_checkout
from tests.setup_standins import advance_remote, git, make_remote


def _env(tmp_path: Path) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home"), "PATH": str(tmp_path / "empty-bin")}


@pytest.mark.parametrize(
    ("lock", "venv", "words"),
    [
        (False, False, "not synced (it has neither uv.lock nor .venv, which `uv sync` writes)"),
        (True, False, "not synced (it has uv.lock but no .venv)"),
        (False, True, "not synced (it has a .venv but no uv.lock, which `uv sync` writes)"),
    ],
)
def test_not_synced_says_what_the_checkout_holds(tmp_path, lock, venv, words):
    """`plan` warned "not synced (no .venv beside uv.lock)" of a checkout without uv.lock."""
    root = make_checkout(tmp_path / "LTX-2", synced=False)
    (root / "uv.lock").unlink(missing_ok=True)
    if lock:
        (root / "uv.lock").write_text("version = 1\n", encoding="utf-8")
    if venv:
        (root / ".venv").mkdir()
    info = inspect_checkout(root, env=_env(tmp_path))
    assert info.synced is False
    assert f"{words}: run `uv sync` in {root}" in info.notes
    assert (root / "uv.lock").is_file() == lock and (root / ".venv").is_dir() == venv


def _old_clone(tmp_path: Path) -> Path:
    """A clone of LTX-2 as it was before 2026-06-17, its remote since brought up to date."""
    remote = make_remote(tmp_path / "remote", layout="1.0", before_rename=True)
    clone = tmp_path / "home" / "LTX-2"
    git("clone", "-q", str(remote), str(clone))
    advance_remote(remote, "1.2")
    return clone


def test_a_checkout_from_before_the_config_rename_is_too_old_and_the_command_updates_it(tmp_path):
    clone = _old_clone(tmp_path)
    with pytest.raises(UsageError) as raised:
        inspect_checkout(clone, env=_env(tmp_path))
    said = raised.value.message
    assert "not an LTX-2 checkout" not in said
    assert said.startswith(f"{clone} is an LTX-2 checkout from before 2026-06-17 (ltx-core 1.0.0)")
    printed = re.search(r"`(git [^`]+)`", said)
    assert printed is not None and printed.group(1) == f"git -C {clone} pull"
    # the command runs as printed, and then the checkout is read
    subprocess.run(shlex.split(printed.group(1)), check=True, capture_output=True, env=dict(os.environ))
    assert inspect_checkout(clone, env=_env(tmp_path)).config_path("t2v_lora.yaml").is_file()


def test_the_search_names_an_old_checkout_rather_than_none(tmp_path):
    clone = _old_clone(tmp_path)
    with pytest.raises(UsageError, match=f"{re.escape(str(clone))} is an LTX-2 checkout from before"):
        find_checkout(cwd=tmp_path, env=_env(tmp_path))


def test_a_checkout_missing_a_config_is_still_not_called_old(tmp_path):
    root = make_checkout(tmp_path / "LTX-2")
    (root / "packages/ltx-trainer/configs/t2v_lora_low_vram.yaml").unlink()
    with pytest.raises(UsageError, match="not an LTX-2 checkout"):
        inspect_checkout(root, env=_env(tmp_path))


def test_the_sync_size_reads_the_checkout_as_it_is(tmp_path):
    root = tmp_path / "LTX-2"
    assert sizes.lock_download_size(root).startswith("known after the clone")
    shutil.copytree(make_checkout(tmp_path / "src", synced=False), root)
    (root / "uv.lock").unlink()
    assert sizes.lock_download_size(root).startswith(f"not known: {root} has no uv.lock")
    make_checkout(root, synced=True, layout="1.1")  # a lock with one wheel of 11534336 bytes
    assert sizes.lock_download_size(root) == "about 12 MB of wheels (from uv.lock)"


@pytest.mark.parametrize(
    ("statuses", "line"),
    [
        ((), "Nothing to run."),
        (("done", "done"), "Setup done."),
        (("failed", "skipped"), "Setup not done: clone failed; sync skipped."),
        (("done", "declined"), "Setup not done: sync declined."),
        (("cancelled", "skipped"), "Setup not done: clone cancelled; sync skipped."),
    ],
)
def test_the_headline_is_read_from_the_outcomes(statuses, line):
    outcomes = [Outcome(key=key, status=s) for key, s in zip(("clone", "sync"), statuses)]
    assert headline(outcomes) == line
