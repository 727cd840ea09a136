"""core/monitor/attach.py and the run lock under it: a wizard whose Monitor is open holds the
run; a second one, while the first lives, is read-only and names it (pid, start time); the lock
decides, --read-only only forces it; this wizard's own hold is no obstacle to itself."""

from __future__ import annotations

import os
import time

from ltx_wizard.core.io.workspace import LOCK_NAME, lock_holder, run_lock
from ltx_wizard.core.monitor.attach import attach
from ltx_wizard.core.proc.table import process_start_time, start_wall_time
from tests.lock_holder import lock_held_elsewhere


def test_a_free_run_is_held_while_attached_and_released_after(tmp_path):
    attached = attach(tmp_path)
    assert not attached.read_only and attached.line() == "" and not attached.refuses("stop")
    assert (tmp_path / LOCK_NAME).read_text().split()[0] == str(os.getpid())
    attached.release()
    assert not (tmp_path / LOCK_NAME).exists()


def test_a_run_another_wizard_holds_is_read_only_and_names_it(tmp_path):
    with lock_held_elsewhere(tmp_path) as other:
        holder = lock_holder(tmp_path)
        assert holder is not None and holder.pid == other.pid
        attached = attach(tmp_path)
        assert attached.read_only and all(attached.refuses(a) for a in ("stop", "resume", "fix"))
        started = start_wall_time(process_start_time(other.pid))
        assert started is not None and abs(started - time.time()) < 600
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(started))
        assert f"another ltx-wizard holds this run (pid {other.pid}, started {when})" in attached.line()
        attached.release()  # holds nothing: the other wizard's lock stays
        assert (tmp_path / LOCK_NAME).read_text().split()[0] == str(other.pid)
    assert lock_holder(tmp_path) is None  # gone with it
    attached = attach(tmp_path)
    assert not attached.read_only
    attached.release()


def test_read_only_is_forced_by_the_flag_on_a_free_run(tmp_path):
    attached = attach(tmp_path, read_only=True)
    assert attached.read_only and "--read-only" in attached.line()
    assert not (tmp_path / LOCK_NAME).exists()


def test_this_wizard_takes_its_own_lock_again_and_only_the_outer_hold_releases_it(tmp_path):
    attached = attach(tmp_path)  # the Monitor
    with run_lock(tmp_path) as lock:  # then autotune again, in the same wizard
        assert lock.note is None
    assert (tmp_path / LOCK_NAME).exists()
    assert lock_holder(tmp_path) is None  # ours: no other holder
    attached.release()
    assert not (tmp_path / LOCK_NAME).exists()
