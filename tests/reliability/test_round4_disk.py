"""Round four: a full disk is one line everywhere, exit 1, nothing half-written.

ENOSPC is made at the os level (os.write on the named file fails, as it does on a full disk
after the empty file was created), so no special filesystem is needed: the run lock's first
write (plan, autotune), a trial's log in the middle of a trial, and a trainer that dies of a full
disk before its first step. The preprocess cases are in test_round4_preprocess.py.
"""

from __future__ import annotations

import errno
import os
import sys

from ltx_wizard.core.io.workspace import LOCK_NAME

from .conftest import MARKER, marked_pids, refused

AUTOTUNE = ("--simulate", "h100", "--max-trials", "1")


def _no_space_writing(monkeypatch, fragment: str, after: int = 0) -> None:
    """os.write fails with ENOSPC on a file whose path holds `fragment`, after `after` writes."""
    real, seen = os.write, [0]

    def write(fd, data):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            target = ""
        if fragment in target:
            seen[0] += 1
            if seen[0] > after:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd, data)

    monkeypatch.setattr(os, "write", write)


def _no_lock_leftovers(folder) -> None:
    assert not [p for p in folder.iterdir() if p.name.startswith(LOCK_NAME)], list(folder.iterdir())


def test_plan_with_no_space_for_the_lock_is_one_line_and_leaves_nothing(box, monkeypatch):
    outside_unchanged = box.freeze(skip=box.root / "none")
    _no_space_writing(monkeypatch, LOCK_NAME)
    refused(box.cli(*box.plan_args()), 1, "no space left to lock run folder", str(box.run))
    assert not box.run.exists()  # the folder made for this plan is removed again
    outside_unchanged()
    monkeypatch.undo()
    assert box.cli(*box.plan_args()).code == 0  # a retry works without --force


def test_autotune_with_no_space_for_the_lock_is_one_line(box, monkeypatch):
    run = box.planned()
    outside_unchanged = box.freeze(skip=run)
    _no_space_writing(monkeypatch, LOCK_NAME)
    refused(box.cli("autotune", str(run), *AUTOTUNE), 1, "no space left to lock run folder")
    _no_lock_leftovers(run)
    assert not (run / "autotune.log").exists()
    outside_unchanged()


def test_a_full_disk_in_the_middle_of_a_trial_log_is_one_line(box, monkeypatch):
    run = box.planned()
    outside_unchanged = box.freeze(skip=run)
    _no_space_writing(monkeypatch, "trial-1.log", after=3)  # the header and two lines fit
    result = box.cli("autotune", str(run), *AUTOTUNE)
    refused(result, 1, "disk is full", "trial-1.log", one_line=False)
    assert not marked_pids(os.environ[MARKER])  # the trial's processes were stopped first
    _no_lock_leftovers(run)
    outside_unchanged()


def test_a_trainer_dying_of_a_full_disk_stops_autotune_naming_the_disk(box):
    run = box.planned()
    script = box.root / "trainer.py"
    script.write_text(
        "import sys\nprint('Loading the model')\n"
        "print('Traceback (most recent call last):', file=sys.stderr)\n"
        "print('OSError: [Errno 28] No space left on device', file=sys.stderr)\n"
        "sys.exit(1)\n"
    )
    outside_unchanged = box.freeze(skip=run)
    result = box.cli("autotune", str(run), *AUTOTUNE, "--trainer-cmd", f"{sys.executable} {script}")
    refused(result, 1, "autotune stopped", "No space left on device", "free disk space", one_line=False)
    outside_unchanged()
