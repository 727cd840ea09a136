"""core/proc/table.py, the one reader of processes (table, environments), and the pid records
read through it (core/io/pid_records.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import pytest

from ltx_wizard.core.io.pid_records import PidRecord, parse_record, read_record, record_text
from ltx_wizard.core.proc import table
from ltx_wizard.core.proc.table import pids_with_env, proc_rows, process_start_time


@pytest.mark.parametrize(
    "data", [b"", b"-1 5", b"0", b"1 1", b"9" * 20, b"\xd9\xa1\xd9\xa2", b"12 34 56", b"4194305", b"\x1b[2J"]
)
def test_a_record_naming_no_plausible_pid_names_nobody(data):
    record = parse_record(data)
    assert record.pid is None and record.problem and not record.alive()


def test_our_own_record_is_alive_and_a_reused_pid_is_not():
    me = parse_record(record_text(os.getpid()).encode())
    assert me.pid == os.getpid() and me.alive()
    if process_start_time(os.getpid()) is not None:  # Linux: the start time tells them apart
        assert not PidRecord(os.getpid(), "1").alive()
        assert PidRecord(os.getpid()).alive()  # a lock's bare pid is still waited for ...
        assert not PidRecord(os.getpid()).alive(verified=True)  # ... never offered to stop


def test_a_fifo_record_reads_as_none_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "train.pid")
    record = read_record(tmp_path / "train.pid", what="train.pid")
    assert record.pid is None and "FIFO" in (record.problem or "")


def test_the_table_knows_this_process_and_its_parent():
    rows = {row.pid: row for row in proc_rows()}
    me = rows[os.getpid()]
    assert me.ppid == os.getppid() and me.pgrp == os.getpgid(0)


def test_the_table_without_proc_comes_from_psutil():
    rows = {row.pid: row for row in table.psutil_rows()}
    me = rows[os.getpid()]
    assert me.ppid == os.getppid() and me.pgrp == os.getpgid(0) and me.start > 0


def test_a_tagged_process_is_found_after_it_left_our_session():
    tag = uuid.uuid4().hex
    child = subprocess.Popen(
        [sys.executable, "-c", "print('up', flush=True); import sys; sys.stdin.read()"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        start_new_session=True,
        env={**os.environ, "LTX_WIZARD_TEST_TAG": tag},
    )
    try:
        # started, not only forked: until it has exec'd, /proc shows our own environment
        assert child.stdout.readline() == b"up\n"
        assert pids_with_env("LTX_WIZARD_TEST_TAG", tag) == [child.pid]
        assert os.getpid() not in pids_with_env("LTX_WIZARD_TEST_TAG", tag)
    finally:
        child.stdin.close()
        child.wait(timeout=30)
        child.stdout.close()
    assert pids_with_env("LTX_WIZARD_TEST_TAG", tag) == []


def test_a_zombie_is_not_alive(tmp_path):
    # An exited child its parent has not waited for yet still answers kill(pid, 0).
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)
    try:
        assert not table.pid_alive(child.pid)
        assert not PidRecord(child.pid, table.process_start_time(child.pid)).alive()
    finally:
        child.wait()
