"""Run folder: root choice, run names, layout, the lock, atomic writes."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from ltx_wizard.core.base.errors import UsageError, WizardError
from ltx_wizard.core.io.workspace import (
    LOCK_NAME,
    RunFolder,
    atomic_write_text,
    choose_root,
    default_run_name,
    run_lock,
    validate_run_name,
)


@pytest.fixture
def blocked(tmp_path) -> Path:
    """A path nobody can create (its parent is a regular file), even as root."""
    (tmp_path / "a-file").write_text("x")
    return tmp_path / "a-file" / "trainings"


def test_explicit_workspace_wins_and_is_resolved(tmp_path):
    got = choose_root("ws", env={"LTX_TRAININGS_DIR": str(tmp_path / "env")}, cwd=tmp_path)
    assert got == (tmp_path / "ws").resolve()


def test_explicit_unwritable_workspace_is_a_usage_error(blocked):
    with pytest.raises(UsageError, match="--workspace .* is not writable"):
        choose_root(blocked, env={})


def test_env_var_then_system_roots_then_projects(tmp_path, blocked):
    system = (blocked, tmp_path / "sys2")
    env = {"LTX_TRAININGS_DIR": str(tmp_path / "env")}
    assert choose_root(env=env, system_roots=system, cwd=tmp_path) == tmp_path / "env"
    # an unwritable $LTX_TRAININGS_DIR is skipped, like the unwritable first system root
    env = {"LTX_TRAININGS_DIR": str(blocked)}
    assert choose_root(env=env, system_roots=system, cwd=tmp_path) == tmp_path / "sys2"
    assert choose_root(env={}, system_roots=(blocked,), cwd=tmp_path) == tmp_path / "projects"


def test_no_writable_root_at_all(blocked):
    with pytest.raises(UsageError, match="pass --workspace"):
        choose_root(env={}, system_roots=(blocked,), cwd=blocked.parent / "a-file")


def test_default_run_name_uses_the_dataset_folder_not_precomputed():
    now = datetime(2025, 3, 7, 9, 5)
    assert default_run_name("/data/my clips/.precomputed", now=now) == "t2v-my-clips-20250307-0905"
    assert default_run_name("/data/cats", now=now, mode="i2v") == "i2v-cats-20250307-0905"
    assert default_run_name("/.precomputed", now=now) == "t2v-dataset-20250307-0905"


@pytest.mark.parametrize("bad", ["", "  ", "a/b", "..", "x..y", "a\\b", "tab\there", "nl\n", "\x7f"])
def test_bad_run_names_are_refused(bad):
    with pytest.raises(UsageError, match="run name"):
        validate_run_name(bad)


def test_good_run_name_passes():
    assert validate_run_name("t2v-cats-20250307-0905.v2_x") == "t2v-cats-20250307-0905.v2_x"


def test_run_folder_layout(tmp_path):
    run = RunFolder(tmp_path / "run")
    run.create()
    assert sorted(p.name for p in run.root.iterdir()) == ["dataset", "logs", "outputs", "overfit"]
    assert (run.plan.name, run.config.name, run.autotune_log.name) == (
        "plan.md",
        "config.yaml",
        "autotune.log",
    )


def test_lock_holds_pid_and_is_released(tmp_path):
    with run_lock(tmp_path / "run") as lock:
        # pid, then its start time (a recycled pid is not the holder)
        assert (tmp_path / "run" / LOCK_NAME).read_text().split()[0] == str(os.getpid())
        assert lock.note is None
    assert not (tmp_path / "run" / LOCK_NAME).exists()


def test_live_lock_refuses_naming_the_pid(tmp_path):
    (tmp_path / LOCK_NAME).write_text(f"{os.getppid()}\n")
    with pytest.raises(WizardError, match=f"pid {os.getppid()}"):
        with run_lock(tmp_path):
            pass
    assert (tmp_path / LOCK_NAME).read_text().strip() == str(os.getppid())  # not stolen


def test_stale_lock_is_taken_over_with_a_note(tmp_path):
    child = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    dead = int(child.stdout)
    (tmp_path / LOCK_NAME).write_text(f"{dead}\n")
    with run_lock(tmp_path) as lock:
        assert lock.note and str(dead) in lock.note
        assert (tmp_path / LOCK_NAME).read_text().split()[0] == str(os.getpid())


def test_garbage_lock_is_taken_over(tmp_path):
    (tmp_path / LOCK_NAME).write_text("not a pid")
    with run_lock(tmp_path) as lock:
        assert lock.note


def test_atomic_write_keeps_bytes_and_leaves_no_temp(tmp_path):
    tmp_path = tmp_path / "run"
    tmp_path.mkdir()
    target = tmp_path / "config.yaml"
    target.write_text("old\n")
    atomic_write_text(target, "a: 1\r\nb: \u00e9\r\n")
    assert target.read_bytes() == "a: 1\r\nb: \u00e9\r\n".encode()
    assert [p.name for p in tmp_path.iterdir()] == ["config.yaml"]


def test_failed_atomic_write_leaves_the_old_file(tmp_path, monkeypatch):
    tmp_path = tmp_path / "run"
    tmp_path.mkdir()
    target = tmp_path / "plan.md"
    target.write_text("old plan\n")

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(WizardError, match="cannot write"):  # one line, not an OSError trace
        atomic_write_text(target, "new plan\n")
    assert target.read_text() == "old plan\n"
    assert [p.name for p in tmp_path.iterdir()] == ["plan.md"]
