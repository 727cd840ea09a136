"""Round four: `ltx-wizard preprocess` under attack. It holds the run lock (a second one at once
is refused), never writes through a `.precomputed` (or an output folder in it) that is a link,
ends its preprocessor on SIGTERM and SIGHUP as promptly as on Ctrl-C, and a full disk, its own
or the script's, is one line (exit 1) with nothing left running.
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ltx_wizard.demo.lookalike_media import make_clip_dataset

from .conftest import MARKER, marked_pids, refused, wait_until

PRESET = ("--simulate", "h100")
GPUS_CSV = "name, memory.total [MiB]\nNVIDIA H100 80GB HBM3, 81559 MiB\n"


@pytest.fixture
def dataset_run(box, monkeypatch):
    """A run planned from a dataset file of three real tiny clips, on simulated GPUs."""
    (box.root / "bin").mkdir(parents=True, exist_ok=True)
    monkeypatch.setenv("PATH", f"{box.root / 'bin'}:/usr/bin:/bin")
    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "0")
    dataset = make_clip_dataset(box.root / "clips", 3)
    result = box.cli(*box.plan_args(data_root=str(dataset)))
    assert result.code == 0, result.err
    return box.run, dataset


def _wizard(run: Path, *extra: str, speed: str = "0.02") -> subprocess.Popen:
    """`ltx-wizard preprocess RUN --one-sample` as its own process, its preprocessor slowed down
    (a caption every 25 s) so that it is still running when the test acts."""
    env = dict(os.environ, LTX_WIZARD_SIM_SPEED=speed)
    return subprocess.Popen(
        [sys.executable, "-m", "ltx_wizard", "preprocess", str(run), "--one-sample", *PRESET, *extra],
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _preprocessor_running(wizard: subprocess.Popen) -> bool:
    return any(pid != wizard.pid for pid in marked_pids(os.environ[MARKER]))


def test_a_second_preprocess_of_the_same_run_is_refused_while_the_first_runs(box, dataset_run):
    run, _ = dataset_run
    first = _wizard(run)
    try:
        assert wait_until(lambda: _preprocessor_running(first)), first.stderr
        outside_unchanged = box.freeze()
        second = box.cli("preprocess", str(run), "--one-sample", *PRESET)
        refused(second, 1, "in use by another ltx-wizard", f"pid {first.pid}")
        outside_unchanged()
    finally:
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=30)


@pytest.mark.parametrize(
    ("sig", "code"),
    [(signal.SIGTERM, 143), (signal.SIGHUP, 129), (signal.SIGINT, 130)],
    ids=["TERM", "HUP", "INT"],
)
def test_a_signal_ends_the_preprocessor_before_the_wizard_exits(box, dataset_run, sig, code):
    run, _ = dataset_run
    wizard = _wizard(run)
    assert wait_until(lambda: _preprocessor_running(wizard))
    started = time.monotonic()
    wizard.send_signal(sig)
    _, err = wizard.communicate(timeout=30)
    took = time.monotonic() - started
    assert wizard.returncode == code, err
    last = err.strip().splitlines()[-1]
    assert last.startswith("ltx-wizard: ") and "Traceback" not in err, err
    assert took < 8, took  # SIGTERM to its group at once; SIGKILL after a 5 s grace at most
    # gone by the time the wizard is: nothing runs on in its own session
    assert wait_until(lambda: not marked_pids(os.environ[MARKER]), 1.0)
    if sig != signal.SIGINT:
        assert signal.Signals(sig).name in last and "the same command resumes" in last


def test_the_full_preprocess_refuses_a_precomputed_that_is_a_link(box, dataset_run):
    run, dataset = dataset_run
    assert box.cli("preprocess", str(run), "--one-sample", *PRESET).code == 0
    elsewhere = box.root / "elsewhere"
    elsewhere.mkdir()
    (dataset.parent / ".precomputed").symlink_to(elsewhere)
    outside_unchanged = box.freeze()
    result = box.cli("preprocess", str(run), "--skip-autotune", *PRESET)
    refused(result, 2, str(dataset.parent / ".precomputed"), "is a symlink", "--precomputed-dir")
    assert list(elsewhere.iterdir()) == []  # nothing written where the link leads
    outside_unchanged()


def test_the_full_preprocess_refuses_a_latents_folder_that_is_a_link(box, dataset_run):
    run, dataset = dataset_run
    assert box.cli("preprocess", str(run), "--one-sample", *PRESET).code == 0
    elsewhere = box.root / "elsewhere"
    elsewhere.mkdir()
    (dataset.parent / ".precomputed").mkdir()
    (dataset.parent / ".precomputed" / "latents").symlink_to(elsewhere)
    result = box.cli("preprocess", str(run), "--skip-autotune", *PRESET)
    refused(result, 2, "latents is a symlink")
    assert list(elsewhere.iterdir()) == []


def test_the_one_sample_step_refuses_a_linked_scratch_folder(box, dataset_run):
    run, _ = dataset_run
    elsewhere = box.root / "elsewhere"
    elsewhere.mkdir()
    (run / "overfit" / ".precomputed").symlink_to(elsewhere)
    outside_unchanged = box.freeze()
    refused(box.cli("preprocess", str(run), "--one-sample", *PRESET), 2, "symlink")
    assert list(elsewhere.iterdir()) == []
    outside_unchanged()


def test_a_log_linked_out_of_the_run_folder_is_never_written_through(box, dataset_run):
    run, _ = dataset_run
    victim = box.root / "victim.log"
    victim.write_text("mine\n")
    (run / "logs" / "preprocess-one-sample.log").symlink_to(victim)
    refused(box.cli("preprocess", str(run), "--one-sample", *PRESET), 2, "symlink")
    assert victim.read_text() == "mine\n"


def test_a_full_disk_while_logging_is_one_line_and_stops_the_preprocessor(box, dataset_run, monkeypatch):
    run, _ = dataset_run
    real = os.write

    def no_space(fd, data):
        if os.readlink(f"/proc/self/fd/{fd}").endswith("preprocess-one-sample.log"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd, data)

    monkeypatch.setattr(os, "write", no_space)
    outside_unchanged = box.freeze()
    result = box.cli("preprocess", str(run), "--one-sample", *PRESET)
    refused(result, 1, "disk is full", "preprocess-one-sample.log")
    assert not marked_pids(os.environ[MARKER])
    assert not (box.root / "clips" / "_one_sample.json").exists()  # the scratch file removed
    outside_unchanged()


def test_a_preprocessor_that_runs_out_of_disk_is_named_in_one_line(box, monkeypatch):
    """A run on this box's own GPUs (planned from a GPU CSV), whose script dies of ENOSPC: the
    end of its log says so, and so does the one line."""
    bin_dir = box.root / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    # `uv run python scripts/process_dataset.py ... --output-dir OUT ...`, out of disk half-way
    # through an atomic save (_atomic_save's `<name>.pt.tmp.<pid>`, left as the real one leaves it)
    # (the audio gate's check, `uv run python -c ...`, first: its environment decodes sound)
    (bin_dir / "uv").write_text(
        '#!/bin/sh\ncase " $* " in *" -c "*) echo \'LTXWIZ-AUDIO {"ok": true, "torchaudio": "2.9.0"}\'; exit 0;; esac\n'
        'while [ $# -gt 0 ]; do [ "$1" = --output-dir ] && out=$2; shift; done\n'
        'mkdir -p "$out/conditions/videos" && : > "$out/conditions/videos/clip_00.pt.tmp.$$"\n'
        "echo 'Processing captions 0%'\n"
        "echo 'OSError: [Errno 28] No space left on device' >&2\nexit 1\n"
    )
    (bin_dir / "uv").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "0")
    gpus = box.root / "gpus.csv"
    gpus.write_text(GPUS_CSV)
    dataset = make_clip_dataset(box.root / "clips", 2)
    argv = box.plan_args(data_root=str(dataset))[:-2] + ["--from-csv", str(gpus)]
    assert box.cli(*argv).code == 0
    result = box.cli("preprocess", str(box.run), "--one-sample")
    refused(result, 1, "disk is full", "No space left on device", "run it again")
    scratch = box.run / "overfit" / ".precomputed"
    assert (scratch / "conditions" / "videos").is_dir()  # the script did run and write there
    assert not [p for p in scratch.rglob("*") if ".pt.tmp." in p.name]  # nothing half-written


@pytest.mark.parametrize(
    "gpus", [10**100, -3, "9" * 5000, 0], ids=["googol", "negative", "5000-digits", "zero"]
)
def test_a_hand_edited_gpu_count_in_run_json_is_read_as_nothing_recorded(box, dataset_run, gpus):
    """run.json is read through the bounded reader: an implausible GPU count is no count, so the
    one-sample step still encodes one sample (not one batch for each of 10**100 GPUs)."""
    import json

    run, _ = dataset_run
    meta = json.loads((run / "run.json").read_text())
    meta["num_gpus"] = gpus
    (run / "run.json").write_text(json.dumps(meta))
    result = box.cli("preprocess", str(run), "--one-sample", *PRESET)
    assert result.code == 0, result.err
    latents = run / "overfit" / ".precomputed" / "latents"
    assert len(list(latents.rglob("*.pt"))) == 1
