"""Finding the user's LTX-2 checkout, and what it says about uv, sync state and the OS."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from ltx_wizard.core.inputs import checkout as checkout_mod
from ltx_wizard.core.inputs.checkout import candidate_roots, find_checkout, inspect_checkout
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.demo.lookalike_checkout import make_checkout


def _env(tmp_path, **extra):
    return {"HOME": os.environ["HOME"], "PATH": str(tmp_path / "empty-bin"), **extra}


def test_explicit_root(tmp_path):
    root = make_checkout(tmp_path / "LTX-2")
    info = find_checkout(str(root), cwd=tmp_path, env=_env(tmp_path))
    assert info.root == root
    assert info.train_script == root / "packages/ltx-trainer/scripts/train.py"
    assert info.config_path("t2v_lora.yaml").is_file()
    assert info.config_path("t2v_lora_low_vram.yaml").is_file()
    assert info.config_path("accelerate/fsdp.yaml").is_file()
    assert info.synced is True and info.found_via == "--trainer-root"


def test_relative_explicit_root(tmp_path):
    make_checkout(tmp_path / "src" / "LTX-2")
    info = find_checkout("src/LTX-2", cwd=tmp_path, env=_env(tmp_path))
    assert info.root == tmp_path / "src" / "LTX-2"


def test_explicit_root_that_is_not_a_checkout_is_an_error(tmp_path):
    root = make_checkout(tmp_path / "LTX-2")
    (root / "packages/ltx-trainer/configs/t2v_lora_low_vram.yaml").unlink()
    make_checkout(Path(os.environ["HOME"]) / "LTX-2")  # a valid one elsewhere must not be picked
    with pytest.raises(UsageError, match="not an LTX-2 checkout \\(missing .*t2v_lora_low_vram.yaml\\)"):
        find_checkout(root, env=_env(tmp_path))


def test_trainer_package_dir_gets_a_hint(tmp_path):
    root = make_checkout(tmp_path / "LTX-2")
    with pytest.raises(UsageError, match=f"pass the monorepo root {root}"):
        find_checkout(root / "packages" / "ltx-trainer", env=_env(tmp_path))


def test_env_var(tmp_path):
    root = make_checkout(tmp_path / "checkouts" / "ltx")
    info = find_checkout(cwd=tmp_path, env=_env(tmp_path, LTX_TRAINER_ROOT=str(root)))
    assert info.root == root and info.found_via == "$LTX_TRAINER_ROOT"


def test_bad_env_var_is_named(tmp_path):
    with pytest.raises(UsageError, match=r"^\$LTX_TRAINER_ROOT: .*does not exist"):
        find_checkout(cwd=tmp_path, env=_env(tmp_path, LTX_TRAINER_ROOT=str(tmp_path / "nope")))


def test_found_from_a_subdirectory(tmp_path):
    root = make_checkout(tmp_path / "LTX-2")
    info = find_checkout(cwd=root / "packages" / "ltx-trainer" / "scripts", env=_env(tmp_path))
    assert info.root == root and info.found_via == "parent of the current directory"


def test_found_in_home(tmp_path):
    root = make_checkout(Path(os.environ["HOME"]) / "LTX-2")
    (tmp_path / "elsewhere").mkdir()
    info = find_checkout(cwd=tmp_path / "elsewhere", env=_env(tmp_path))
    assert info.root == root and info.found_via == "~/LTX-2"


def test_search_order_includes_workspace(tmp_path):
    roots = [str(p) for p, _ in candidate_roots(cwd=tmp_path, env=_env(tmp_path))]
    assert roots[0] == str(tmp_path)
    assert roots[-2:] == [os.path.join(os.environ["HOME"], "LTX-2"), "/workspace/LTX-2"]


def test_not_found_says_where_it_looked(tmp_path, monkeypatch):
    monkeypatch.setattr(
        checkout_mod,
        "candidate_roots",
        lambda cwd, env: [(tmp_path / "a", "here"), (tmp_path / "b", "there")],
    )
    with pytest.raises(UsageError) as info:
        find_checkout(cwd=tmp_path, env=_env(tmp_path))
    msg = info.value.message
    assert "no LTX-2 checkout found" in msg and str(tmp_path / "a") in msg and "--trainer-root" in msg


def test_uv_on_path_and_sync_state(tmp_path):
    root = make_checkout(tmp_path / "LTX-2", synced=False)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "uv").write_text("#!/bin/sh\n")
    (bin_dir / "uv").chmod(0o755)
    info = inspect_checkout(root, env={"PATH": str(bin_dir)})
    assert info.uv_path == str(bin_dir / "uv")
    assert info.synced is False
    assert any("run `uv sync` in" in n for n in info.notes)
    bare = inspect_checkout(make_checkout(tmp_path / "other"), env={"PATH": str(tmp_path / "none")})
    assert bare.uv_path is None and any("uv is not on PATH" in n for n in bare.notes)


def test_non_linux_is_reported(tmp_path, monkeypatch):
    root = make_checkout(tmp_path / "LTX-2")
    monkeypatch.setattr(sys, "platform", "darwin")
    info = inspect_checkout(root, env=_env(tmp_path))
    assert info.is_linux is False
    assert any("runs on Linux only" in n for n in info.notes)


def test_file_instead_of_directory(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(UsageError, match="is not a directory"):
        inspect_checkout(tmp_path / "f", env=_env(tmp_path))
