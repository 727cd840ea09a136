"""A checkpoint's header is read once per file version and handed on to every later check."""

from __future__ import annotations

import os

import pytest

from ltx_wizard.core.inputs import header_cache
from ltx_wizard.core.inputs.checkpoint import inspect_checkpoint
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.demo.lookalike_models import make_checkpoint
from ltx_wizard.core.plan.model_checks import run_checks


def test_the_paths_checks_and_the_plan_read_an_unchanged_checkpoint_once(tmp_path):
    path = make_checkpoint(tmp_path / "ltx-2.safetensors", params_b=1.0)
    before = header_cache.reads
    first = inspect_checkpoint(path)
    run_checks(checkpoint=path)  # the paths form: its own look, then every field's check
    again = inspect_checkpoint(str(path))
    assert header_cache.reads - before == 1
    assert again == first and again.transformer_param_count == 1_000_000_000


def test_a_rewritten_checkpoint_is_read_again(tmp_path):
    path = make_checkpoint(tmp_path / "ltx-2.safetensors", model_version="2.0.0")
    assert inspect_checkpoint(path).model_version == "2.0.0"
    make_checkpoint(path, model_version="2.3.0")  # same size: the new mtime tells it apart
    stamp = path.stat().st_mtime_ns + 1_000_000
    os.utime(path, ns=(stamp, stamp))
    assert inspect_checkpoint(path).model_version == "2.3.0"


def test_a_broken_checkpoint_is_not_remembered_once_fixed(tmp_path):
    path = tmp_path / "ltx-2.safetensors"
    path.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json at all}")
    with pytest.raises(UsageError, match="not UTF-8 JSON"):
        inspect_checkpoint(path)
    make_checkpoint(path)
    assert inspect_checkpoint(path).model_version == "2.0.0"
