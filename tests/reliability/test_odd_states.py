"""Odd states the red team found as "internal error" (round three): each is one line and an
exit code now (2 for bad input, 1 for a full disk after cleaning up), or handled as the odd
reading it is, with the sandbox unchanged and no process left (the `box` fixture)."""

from __future__ import annotations

import errno
import json
import os
import tempfile

import pytest

from ltx_wizard.core.plan import host_limits
from ltx_wizard.core.io.workspace import LOCK_NAME
from ltx_wizard.demo.lookalike_models import make_checkpoint

from .conftest import refused


def clean(result) -> None:
    assert "internal error" not in result.err and "Traceback" not in result.err, result.err


# --- the run lock in any odd state -----------------------------------------------------------


@pytest.mark.parametrize(
    "content", ["9" * 20 + " 5\n", "-1 5\n", "0\n", "1 1\n"], ids=["20-digits", "minus-1", "zero", "init"]
)
def test_a_lock_naming_no_plausible_process_is_stale_and_taken_over(box, content):
    run = box.planned()
    (run / LOCK_NAME).write_text(content)
    outside = box.freeze()
    result = box.cli(*box.plan_args("--force"))
    clean(result)
    assert result.code == 0, result.err
    assert "took over a stale lock" in result.err and "pid -1" not in result.err
    assert not (run / LOCK_NAME).exists()
    outside()


def test_a_folder_planted_as_the_lock_is_one_line(box):
    run = box.planned()
    (run / LOCK_NAME).mkdir()
    outside = box.freeze(skip=box.root / "none")
    refused(box.cli(*box.plan_args("--force")), 2, LOCK_NAME, "not a lock file")
    outside()


@pytest.mark.parametrize(
    ("err", "code", "words"),
    [
        (errno.ENOSPC, 1, "no space left"),
        (errno.EROFS, 2, "cannot lock run folder"),
        (errno.EACCES, 2, "cannot lock run folder"),
    ],
    ids=["disk-full", "read-only", "no-access"],
)
def test_a_lock_that_cannot_be_created_is_one_line_and_leaves_nothing(box, monkeypatch, err, code, words):
    def refuse(*args, **kwargs):
        raise OSError(err, os.strerror(err))

    outside = box.freeze(skip=box.root / "none")
    monkeypatch.setattr(tempfile, "mkstemp", refuse)  # the lock's first write
    refused(box.cli(*box.plan_args()), code, words)
    outside()
    assert not box.run.exists()  # the run folder made for this plan is removed again


# --- numbers from files bounded before conversion ---------------------------------------------

ODD_MEMINFO = [
    ("5000-digits", "MemTotal: " + "9" * 5000 + " kB\nMemAvailable: 1 kB\n"),
    ("huge", "MemTotal: " + "9" * 40 + " kB\nMemAvailable: " + "9" * 30 + " kB\n"),
    ("unicode-digit", "MemTotal: ² kB\nMemAvailable: ³ kB\n"),
    ("binary", "\x00\xff\x01MemTotal:\n"),
]


@pytest.mark.parametrize("text", [t for _, t in ODD_MEMINFO], ids=[i for i, _ in ODD_MEMINFO])
def test_odd_meminfo_is_an_unknown_reading_not_a_crash(box, monkeypatch, text):
    meminfo = box.root / "meminfo"
    meminfo.write_text(text, encoding="latin-1")
    monkeypatch.setattr(host_limits, "MEMINFO", meminfo)
    from ltx_wizard.core.autotune.trials.side_by_side import host_available_gb

    assert host_available_gb() is None or host_available_gb() < 1  # never an overflow
    outside = box.freeze()
    result = box.cli(*box.plan_args())
    clean(result)
    assert result.code == 0, result.err
    outside()


@pytest.mark.parametrize("value", ["9" * 5000, "³", "fifo"], ids=["5000-digits", "unicode", "fifo"])
def test_odd_cgroup_limit_is_ignored(box, monkeypatch, value):
    cgroup = box.root / "cgroup"
    cgroup.mkdir()
    if value == "fifo":
        os.mkfifo(cgroup / "memory.max")  # before: read_text() blocked for ever
    else:
        (cgroup / "memory.max").write_text(value + "\n")
    monkeypatch.setattr(host_limits, "CGROUP_ROOT", cgroup)
    outside = box.freeze()
    result = box.cli(*box.plan_args())
    clean(result)
    assert result.code == 0, result.err
    outside()


def test_a_5000_digit_model_version_spoils_only_its_own_file(box):
    models = box.root / "models"
    make_checkpoint(models / "a-ltx-2-version.safetensors", model_version="9" * 5000)
    outside = box.freeze()
    result = box.cli("discover", "--models-dir", str(models), "--json")
    clean(result)
    assert result.code == 0, result.err
    found = {os.path.basename(c["path"]): c for c in json.loads(result.out)["candidates"]}
    assert found["ltx-2.safetensors"]["usable"] is True  # the other files are still found
    assert "9" * 200 not in result.out + result.err  # a version is cut when printed
    outside()


def test_a_5000_digit_model_version_is_one_line_in_check(box):
    ckpt = make_checkpoint(box.root / "v" / "ltx-2.safetensors", model_version="9" * 5000)
    outside = box.freeze()
    result = box.cli("check", "--checkpoint", str(ckpt), "--text-encoder", str(box.gemma))
    clean(result)
    assert result.code in (0, 2), result.err
    assert "9" * 200 not in result.out + result.err
    outside()


# --- the shipped configs and recipes ----------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["", "model:\n  training_mode: lora\n", "# only a comment\n"],
    ids=["empty", "truncated", "comment-only"],
)
@pytest.mark.parametrize("name", ["t2v_lora.yaml", "t2v_lora_low_vram.yaml", "i2v_lora.yaml"])
def test_an_empty_or_truncated_shipped_config_is_a_broken_checkout(box, text, name):
    box.shipped(name).write_text(text)
    outside = box.freeze(skip=box.root / "none")
    argv = box.plan_args("--recipe", "i2v_lora")
    argv[argv.index("h100")] = "rtx5090"  # 32 GB: the low-VRAM keys read both t2v files
    result = box.cli(*argv)
    refused(result, 2, "checkout is broken", name)
    outside()


@pytest.mark.parametrize(
    "recipe",
    ["../../../../elsewhere", "/etc/passwd", "a/b", ".hidden", "x\n"],
    ids=["dotdot", "absolute", "slash", "dot", "newline"],
)
def test_a_recipe_comes_only_from_the_checkouts_configs(box, recipe):
    elsewhere = box.root / "elsewhere.yaml"
    elsewhere.write_text(box.shipped("i2v_lora.yaml").read_text())
    outside = box.freeze(skip=box.root / "none")
    refused(box.cli(*box.plan_args("--recipe", recipe)), 2, "--recipe", "not a recipe name")
    outside()


def test_a_recipe_link_out_of_configs_is_refused(box):
    elsewhere = box.root / "elsewhere.yaml"
    elsewhere.write_text(box.shipped("i2v_lora.yaml").read_text())
    os.symlink(elsewhere, box.shipped("mine.yaml"))
    outside = box.freeze(skip=box.root / "none")
    refused(box.cli(*box.plan_args("--recipe", "mine")), 2, "link out of")
    outside()


def test_slurm_cpus_help_and_check_agree(box, capsys):
    result = box.cli("plan", "--help")
    assert result.code == 0
    help_text = " ".join(result.out.split())
    assert "1..4096" in help_text
    outside = box.freeze(skip=box.root / "none")
    refused(box.cli(*box.plan_args("--nodes", "2", "--slurm-cpus", "5000")), 2, "--slurm-cpus", "1..4096")
    outside()
