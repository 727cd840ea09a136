"""Faults: a full or read-only disk, a hung or flooding nvidia-smi, locks, signals, crashes.

A genuine runtime failure exits 1 after removing what it half wrote (a retry then works without
--force); bad input exits 2. Nothing outside the run folder changes and no process is left.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ltx_wizard.core.autotune.trials.session_record import RECORD_NAME
from ltx_wizard.core.proc.tags import TAG_ENV, new_tag
from ltx_wizard.core.gpu.smi_source import SMI_MAX_BYTES, SmiUnavailable, probe_nvidia_smi
from ltx_wizard.core.io.workspace import LOCK_NAME

from .conftest import marked_pids, refused, wait_until

AUTOTUNE = ("--simulate", "h100", "--max-trials", "1")


def _fail_on(monkeypatch, name: str, target: str, err: int) -> None:
    """Make os.<name> fail with `err` when its last path argument ends with `target`."""
    real = getattr(os, name)

    def failing(*args, **kwargs):
        paths = [a for a in args if isinstance(a, (str, os.PathLike))]
        if paths and os.fspath(paths[-1]).endswith(target):
            raise OSError(err, os.strerror(err))
        return real(*args, **kwargs)

    monkeypatch.setattr(os, name, failing)


@pytest.mark.parametrize("target", ["config.yaml", "run.json", "plan.md"])
def test_full_disk_while_planning_cleans_up_and_a_retry_works(box, monkeypatch, target):
    unchanged = box.freeze()
    _fail_on(monkeypatch, "replace", target, errno.ENOSPC)
    refused(box.cli(*box.plan_args()), 1, "disk is full")
    unchanged()
    assert not box.run.exists()  # nothing half-written, not even the folder
    assert not [p for p in box.ws.rglob("*") if p.name.endswith(".tmp")]
    monkeypatch.undo()
    assert box.cli(*box.plan_args()).code == 0  # no --force needed


def test_full_disk_on_fsync_leaves_no_temp_file(box, monkeypatch):
    unchanged = box.freeze()

    def no_space(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", no_space)
    refused(box.cli(*box.plan_args()), 1, "disk is full")
    unchanged()
    assert not box.run.exists()


@pytest.mark.parametrize(
    ("err", "words"),
    [(errno.EACCES, "Permission denied"), (errno.EROFS, "Read-only"), (errno.ENAMETOOLONG, "too long")],
)
def test_unwritable_workspace_is_bad_input(box, monkeypatch, err, words):
    unchanged = box.freeze()
    real = os.mkdir

    def failing(path, *args, **kwargs):
        if os.fspath(path) == str(box.run):
            raise OSError(err, os.strerror(err))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "mkdir", failing)
    refused(box.cli(*box.plan_args()), 2, words)
    unchanged()


def test_full_disk_while_autotune_logs_is_one_line(box, monkeypatch):
    run = box.planned()
    unchanged = box.freeze(skip=run)
    real = os.fsync

    def no_space(fd):
        if os.readlink(f"/proc/self/fd/{fd}").endswith("autotune.log"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd)

    monkeypatch.setattr(os, "fsync", no_space)
    refused(box.cli("autotune", str(run), *AUTOTUNE), 1, "disk is full", "autotune.log")
    unchanged()


def test_full_disk_writing_a_trial_config_is_one_line(box, monkeypatch):
    run = box.planned()
    unchanged = box.freeze(skip=run)
    _fail_on(monkeypatch, "replace", "trial-1/config.yaml", errno.ENOSPC)
    refused(box.cli("autotune", str(run), *AUTOTUNE), 1, "disk is full")
    unchanged()
    assert not list((run / "overfit").glob("trial-1/.config.yaml.*"))


def _fake_smi(box, monkeypatch, body: str) -> None:
    bin_dir = box.root / "smi-bin"
    bin_dir.mkdir()
    script = bin_dir / "nvidia-smi"
    script.write_text(f"#!{sys.executable}\n{body}\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("import time\ntime.sleep(60)", "did not answer"),
        ("import sys\nwhile True: sys.stdout.write('x' * 65536)", "printed over"),
        ("import sys\nprint('\\x1b[31mNVML: driver\\x1b]0;x\\x07 mismatch'); sys.exit(9)", "exit 9"),
    ],
)
def test_nvidia_smi_hang_flood_or_failure_is_bounded(box, monkeypatch, body, words):
    _fake_smi(box, monkeypatch, body)
    with pytest.raises(SmiUnavailable) as err:
        probe_nvidia_smi(timeout_s=2.0)
    assert words in err.value.message and "\x1b" not in err.value.message
    assert wait_until(lambda: not marked_pids(os.environ["LTX_WIZARD_RELIABILITY_SANDBOX"]))
    assert SMI_MAX_BYTES <= 1 << 20  # the cap that bounds the flood's memory


def test_stale_lock_is_taken_over(box):
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    ).stdout.strip()
    box.run.mkdir()
    (box.run / LOCK_NAME).write_text(f"{dead} 1\n")
    result = box.cli(*box.plan_args())
    assert result.code == 0 and "took over a stale lock" in result.err
    assert not (box.run / LOCK_NAME).exists()


def test_live_lock_refuses_a_second_wizard(box):
    run = box.planned()
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        (run / LOCK_NAME).write_text(f"{holder.pid} -\n")
        unchanged = box.freeze(skip=run / "nothing")
        refused(box.cli("autotune", str(run), *AUTOTUNE), 1, "in use", f"pid {holder.pid}")
        unchanged()
    finally:
        holder.kill()
        holder.wait()


def test_recycled_pid_in_a_lock_is_stale(box):
    run = box.planned()
    (run / LOCK_NAME).write_text(f"{os.getppid()} 1\n")  # alive, but started at another time
    result = box.cli("autotune", str(run), *AUTOTUNE)
    assert result.code == 0, result.err  # not "in use by another ltx-wizard"


def test_trainer_crash_is_one_line_exit_1(box):
    run = box.planned()
    unchanged = box.freeze(skip=run)
    result = box.cli(
        "autotune", str(run), *AUTOTUNE, "--trainer-cmd", f"{sys.executable} -c 'import sys; sys.exit(3)'"
    )
    refused(result, 1, "no trial", one_line=False)
    unchanged()


def test_missing_trainer_root_is_one_line(box):
    run = box.planned()
    meta = json.loads((run / "run.json").read_text())
    meta["trainer_root"] = str(box.root / "gone")
    (run / "run.json").write_text(json.dumps(meta))
    csv = box.root / "gpus.csv"
    csv.write_text("name, memory.total [MiB]\nNVIDIA H100 80GB HBM3, 81559 MiB\n")
    unchanged = box.freeze(skip=run)
    result = box.cli("autotune", str(run), "--from-csv", str(csv), "--max-trials", "1")
    refused(result, 2)
    unchanged()


def _trainer_script(box, body: str) -> str:
    script = box.root / "trainer.py"
    script.write_text(body)
    return f"{sys.executable} {script}"


SLEEPER = """
import os, subprocess, sys, time
here = os.path.dirname(os.path.abspath(__file__))
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"],
                         start_new_session=True)  # escapes the trial's process group
with open(os.path.join(here, "pids.tmp"), "w") as fh:
    fh.write(f"{os.getpid()} {child.pid}")
os.replace(os.path.join(here, "pids.tmp"), os.path.join(here, "pids"))
time.sleep(120)
"""


def _pids(box) -> list[int]:
    return [int(p) for p in (box.root / "pids").read_text().split()]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def _wizard(box, run: Path, cmd: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "ltx_wizard", "autotune", str(run), *AUTOTUNE, "--trainer-cmd", cmd],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGHUP])
def test_trainer_and_its_setsid_grandchild_die_with_the_wizard(box, sig):
    """SIGKILL is what the OOM killer sends: no handler runs, the reaper still stops the trial."""
    run = box.planned()
    wizard = _wizard(box, run, _trainer_script(box, SLEEPER))
    try:
        assert wait_until(lambda: (box.root / "pids").exists(), 60), wizard.stderr.read()
        trainer, grandchild = _pids(box)
        os.kill(wizard.pid, sig)
        wizard.wait(30)
        assert wait_until(lambda: not _alive(trainer) and not _alive(grandchild), 30)
        err = wizard.stderr.read().decode()
        assert "internal error" not in err and "Traceback" not in err
    finally:
        if wizard.poll() is None:
            wizard.kill()
            wizard.wait()


def test_setsid_grandchild_is_stopped_after_its_trial(box):
    run = box.planned()
    quick = SLEEPER.rsplit("time.sleep(120)", 1)[0] + "sys.exit(0)\n"
    result = box.cli("autotune", str(run), *AUTOTUNE, "--trainer-cmd", _trainer_script(box, quick))
    assert "internal error" not in result.err
    trainer, grandchild = _pids(box)
    assert not _alive(grandchild)  # found by its tag though it left the group, and stopped


def test_resume_refuses_while_an_earlier_trial_still_runs(box):
    run = box.planned()
    tag = new_tag()  # unique: another run of the suite on this machine has its own leftover
    (run / "overfit" / RECORD_NAME).write_text(json.dumps({"tag": tag, "wizard_pid": 1}))
    leftover = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"],
        env={**os.environ, TAG_ENV: tag},
        start_new_session=True,
    )
    try:
        assert wait_until(lambda: _environ_has(leftover.pid, tag))
        unchanged = box.freeze(skip=run / "none")
        refused(box.cli("autotune", str(run), *AUTOTUNE), 2, "still run", str(leftover.pid))
        unchanged()
        assert not any(run.glob("overfit/trial-*"))  # trial 1 did not start beside it
    finally:
        leftover.kill()
        leftover.wait()
    assert box.cli("autotune", str(run), *AUTOTUNE).code == 0  # once it is gone, resume works


def _environ_has(pid: int, tag: str) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            return f"{TAG_ENV}={tag}".encode() in fh.read()
    except OSError:
        return False


def test_hung_terminal_still_lets_the_wizard_exit(tmp_path):
    """The terminal vanishes (tmux kill): the watcher ends the process even if it never returns
    to its event loop (here: a main thread that only sleeps)."""
    import pty

    master, slave = pty.openpty()
    code = (
        "import time; from ltx_wizard.core.io.terminal_watch import watch_terminal; "
        "import os; assert watch_terminal(1, grace_s=0.1); os.write(1, b'up'); time.sleep(120)"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        stdin=slave,
        stdout=slave,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    os.close(slave)
    try:
        assert os.read(master, 64).startswith(b"up")
        assert proc.poll() is None  # a live terminal keeps it running
        os.close(master)  # hang-up
        assert proc.wait(20) == 128 + signal.SIGHUP, proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_write_error_is_not_a_traceback(box, monkeypatch):
    _fail_on(monkeypatch, "replace", "plan.md", errno.EIO)
    result = box.cli(*box.plan_args())
    refused(result, 1, "cannot write")
    assert not box.run.exists()


def test_terminal_gone_while_printing_is_a_quiet_exit_1(box, monkeypatch):
    """Writing to a hung-up terminal fails with EIO: no 'internal error' sent after it."""
    from ltx_wizard.commands import probe

    def dead_terminal(text):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(probe, "format_text", dead_terminal)
    result = box.cli("probe", "--simulate", "h100")
    assert result.code == 1 and result.err == ""
