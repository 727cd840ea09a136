"""ChildProcess: output arrives line by line, and no process of a trial ever outlives it."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ltx_wizard.core.proc import child as tp
from ltx_wizard.core.proc import registry
from ltx_wizard.core.proc.child import ChildProcess, OutputLine

REPO_ROOT = Path(__file__).resolve().parents[3]
BOUND_S = 60  # generous upper bound for any wait; tests finish on events, not on this


def _alive(pid: int) -> bool:
    """Whether pid is a live (non-zombie) process, read from the process table."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return stat[stat.rfind(b")") + 2 :].split()[0] != b"Z"


def _group_members(pgid: int) -> list[int]:
    members = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                stat = Path(f"/proc/{name}/stat").read_bytes()
            except OSError:
                continue
            fields = stat[stat.rfind(b")") + 2 :].split()
            if int(fields[2]) == pgid and fields[0] != b"Z":
                members.append(int(name))
    return members


# A child inherits an ignored SIGINT (a runner started in the background by a non-interactive shell
# ignores it, and so the test process); the wizard's own handler (core/proc/signals.py) replaces
# the ignore, so its children start with the default. These children are started without it: they
# take Python's default themselves, as the wizard's children have it.
_DEFAULT_SIGINT = "import signal as _s; _s.signal(_s.SIGINT, _s.default_int_handler)\n"


def _script(tmp_path: Path, name: str, body: str) -> list[str]:
    path = tmp_path / name
    path.write_text(_DEFAULT_SIGINT + textwrap.dedent(body))
    return [sys.executable, str(path)]


class Collector:
    """Collects lines and lets a test wait for one that contains a marker."""

    def __init__(self) -> None:
        self.lines: list[OutputLine] = []
        self._waiters: list[tuple[str, asyncio.Future]] = []

    async def __call__(self, line: OutputLine) -> None:
        self.lines.append(line)
        for marker, fut in self._waiters:
            if marker in line.text and not fut.done():
                fut.set_result(line)

    async def wait_for(self, marker: str) -> OutputLine:
        for line in self.lines:
            if marker in line.text:
                return line
        fut = asyncio.get_running_loop().create_future()
        self._waiters.append((marker, fut))
        return await asyncio.wait_for(fut, BOUND_S)

    def texts(self, stream: str | None = None) -> list[str]:
        return [ln.text for ln in self.lines if stream is None or ln.stream == stream]


async def test_lines_from_both_streams_with_env_and_exit_code(tmp_path):
    argv = _script(
        tmp_path,
        "child.py",
        """
        import os, sys
        print("env", os.environ["PYTHONUNBUFFERED"], os.environ["COLUMNS"], os.environ["EXTRA"])
        print("Step 20/50 - Loss: 0.1")
        print("boom", file=sys.stderr)
        print("Step 40/50 - Loss: 0.1")
        sys.stdout.write("no newline at the end")
        sys.exit(3)
        """,
    )
    out = Collector()
    trial = ChildProcess(argv, cwd=tmp_path, env={"EXTRA": "yes"}, on_line=out)
    result = await asyncio.wait_for(trial.run(), BOUND_S)

    assert out.texts("stdout") == [
        "env 1 250 yes",
        "Step 20/50 - Loss: 0.1",
        "Step 40/50 - Loss: 0.1",
        "no newline at the end",
    ]
    assert out.texts("stderr") == ["boom"]
    stamps = [ln.t for ln in out.lines if ln.stream == "stdout"]
    assert stamps == sorted(stamps)
    assert result.returncode == 3 and result.ended_by == "exit" and result.stop_reason is None
    assert result.pid == trial.pid and result.wall_s > 0
    assert not _alive(result.pid)


async def test_overlong_line_is_capped_and_the_next_line_survives(tmp_path):
    argv = _script(
        tmp_path,
        "long.py",
        """
        import sys
        for _ in range(64):
            sys.stdout.write("x" * 16384)  # 1 MiB without a newline
        sys.stdout.write("\\nafter\\n")
        """,
    )
    out = Collector()
    await asyncio.wait_for(ChildProcess(argv, on_line=out, max_line_bytes=1000).run(), BOUND_S)

    assert [len(t) for t in out.texts()] == [1000, 5]
    assert out.lines[0].truncated and out.lines[1].text == "after"
    assert not out.lines[1].truncated


async def test_flood_delivers_every_line_and_other_tasks_keep_running(tmp_path):
    argv = _script(
        tmp_path,
        "flood.py",
        """
        import sys
        for i in range(200_000):
            sys.stdout.write(f"line {i} " + "y" * 40 + "\\n")
        """,
    )
    count = 0
    ticks_during_flood = 0

    def on_line(line: OutputLine) -> None:
        nonlocal count
        count += 1

    trial = ChildProcess(argv, on_line=on_line)

    async def ticker() -> None:
        nonlocal ticks_during_flood
        while True:
            await asyncio.sleep(0)
            if 0 < count < 200_000:
                ticks_during_flood += 1

    tick_task = asyncio.ensure_future(ticker())
    try:
        await asyncio.wait_for(trial.run(), BOUND_S)
    finally:
        tick_task.cancel()
    assert count == 200_000
    assert ticks_during_flood > 10


async def test_stop_kills_a_child_that_ignores_sigint_and_sigterm_and_its_grandchild(tmp_path):
    argv = _script(
        tmp_path,
        "stubborn.py",
        """
        import signal, subprocess, sys, time
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        grandchild = subprocess.Popen([sys.executable, "-c",
            "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
            "signal.signal(signal.SIGINT, signal.SIG_IGN); time.sleep(3600)"])
        print("grandchild", grandchild.pid, flush=True)
        print("torch.OutOfMemoryError: CUDA out of memory.", file=sys.stderr, flush=True)
        time.sleep(3600)
        """,
    )
    out = Collector()
    trial = ChildProcess(argv, on_line=out, grace_s=0.5)
    await trial.start()
    grandchild = int((await out.wait_for("grandchild")).text.split()[1])
    await out.wait_for("OutOfMemoryError")
    assert _alive(grandchild)

    result = await asyncio.wait_for(trial.stop("oom"), BOUND_S)

    assert result.ended_by == "stopped" and result.stop_reason == "oom"
    assert result.returncode == -signal.SIGKILL  # SIGINT and SIGTERM ignored; SIGKILL after grace
    assert not _alive(grandchild) and _group_members(result.pid) == []
    assert registry.live() == []
    again = await trial.stop("cancelled")  # second stop: same result, no error
    assert again == result


async def test_grandchild_left_behind_by_a_clean_exit_is_cleaned_up(tmp_path):
    argv = _script(
        tmp_path,
        "leaver.py",
        """
        import subprocess, sys
        grandchild = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"],
                                      stdout=subprocess.DEVNULL)
        print("grandchild", grandchild.pid, flush=True)
        """,
    )
    out = Collector()
    trial = ChildProcess(argv, on_line=out, grace_s=5)
    result = await asyncio.wait_for(trial.run(), BOUND_S)
    grandchild = int((await out.wait_for("grandchild")).text.split()[1])

    assert result.ended_by == "exit" and result.returncode == 0
    assert not _alive(grandchild) and _group_members(result.pid) == []
    assert (await trial.stop("cancelled")) == result  # stop after exit changes nothing


async def test_silent_child_ends_as_timeout(tmp_path):
    argv = _script(
        tmp_path,
        "hang.py",
        """
        import time
        print("loading model", flush=True)
        time.sleep(3600)
        """,
    )
    out = Collector()
    trial = ChildProcess(argv, on_line=out, idle_timeout_s=1.0, grace_s=5)
    result = await asyncio.wait_for(trial.run(), BOUND_S)

    assert out.texts()[0] == "loading model" and out.texts()[-1] == "KeyboardInterrupt"
    # the stop rule's first word: Python dies of an unhandled KeyboardInterrupt by SIGINT itself
    assert result.ended_by == "timeout" and result.returncode == -signal.SIGINT
    assert _group_members(result.pid) == []


async def test_chatty_child_still_stops_at_max_wall(tmp_path):
    argv = _script(
        tmp_path,
        "chatty.py",
        """
        import time
        while True:
            print("tick", flush=True)
            time.sleep(0.05)
        """,
    )
    trial = ChildProcess(argv, idle_timeout_s=30, max_wall_s=1.0)
    result = await asyncio.wait_for(trial.run(), BOUND_S)
    assert result.ended_by == "timeout" and _group_members(result.pid) == []


async def test_cancel_and_a_failing_callback_both_end_the_trial(tmp_path):
    argv = _script(
        tmp_path,
        "sleeper.py",
        """
        import time
        print("started", flush=True)
        time.sleep(3600)
        """,
    )
    out = Collector()
    trial = ChildProcess(argv, on_line=out)
    await trial.start()
    await out.wait_for("started")
    await asyncio.gather(trial.stop("cancelled"), trial.stop("cancelled"))
    result = await trial.wait()
    assert result.ended_by == "cancelled" and _group_members(result.pid) == []

    def broken(line: OutputLine) -> None:
        raise KeyError("consumer bug")

    trial = ChildProcess(argv, on_line=broken)
    await trial.start()
    with pytest.raises(KeyError):
        await asyncio.wait_for(trial.wait(), BOUND_S)
    assert _group_members(trial.pid) == []


def _driver(tmp_path: Path, child_argv: list[str], finish: str) -> subprocess.Popen:
    """A wizard-like process: starts a trial, prints its pid, then `finish` happens."""
    path = tmp_path / "driver.py"
    path.write_text(
        textwrap.dedent(
            f"""
            import asyncio, sys
            from ltx_wizard.core.proc.signals import install_on_loop
            from ltx_wizard.core.proc.child import ChildProcess

            async def main():
                loop = asyncio.get_running_loop()
                install_on_loop(loop)
                ready = asyncio.Event()
                trial = ChildProcess({child_argv!r}, grace_s=1.0,
                                     on_line=lambda line: ready.set())
                await trial.start()
                await ready.wait()
                print("trial", trial.pid, flush=True)
                {finish}

            asyncio.run(main())
            """
        )
    )
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.Popen([sys.executable, str(path)], stdout=subprocess.PIPE, text=True, env=env)


@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGTERM, signal.SIGINT])
def test_signal_to_the_wizard_takes_the_trial_group_down(tmp_path, sig):
    child = _script(
        tmp_path,
        "stubborn.py",
        """
        import signal, time
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        print("up", flush=True)
        time.sleep(3600)
        """,
    )
    driver = _driver(tmp_path, child, "await asyncio.Event().wait()")
    try:
        trial_pid = int(driver.stdout.readline().split()[1])
        assert _alive(trial_pid)
        driver.send_signal(sig)
        assert driver.wait(BOUND_S) == -sig  # the wizard still dies of the signal it got
    finally:
        if driver.poll() is None:
            driver.kill()
        driver.stdout.close()
    assert _group_members(trial_pid) == []


def test_exit_without_stopping_still_kills_the_trial(tmp_path):
    child = _script(
        tmp_path,
        "sleeper.py",
        """
        import time
        print("up", flush=True)
        time.sleep(3600)
        """,
    )
    driver = _driver(tmp_path, child, "raise SystemExit(5)")
    try:
        trial_pid = int(driver.stdout.readline().split()[1])
        assert driver.wait(BOUND_S) == 5
    finally:
        if driver.poll() is None:
            driver.kill()
        driver.stdout.close()
    assert _group_members(trial_pid) == []


async def test_on_line_may_await_stop_on_an_oom_line(tmp_path):
    argv = _script(
        tmp_path,
        "oom.py",
        """
        import sys, time
        print("Step 20/50 - Loss: 0.1", flush=True)
        print("torch.OutOfMemoryError: CUDA out of memory.", file=sys.stderr, flush=True)
        time.sleep(3600)  # a real trainer may take long to tear down after an OOM
        """,
    )
    seen: list[str] = []

    async def on_line(line: OutputLine) -> None:
        seen.append(line.text)
        if "OutOfMemoryError" in line.text:
            assert await trial.stop("oom") is None  # no deadlock: returns, the stop goes on

    trial = ChildProcess(argv, on_line=on_line, grace_s=5)
    result = await asyncio.wait_for(trial.run(), BOUND_S)
    assert result.ended_by == "stopped" and result.stop_reason == "oom"
    assert seen[:2] == ["Step 20/50 - Loss: 0.1", "torch.OutOfMemoryError: CUDA out of memory."]
    assert seen[-1] == "KeyboardInterrupt"  # stopped by the rule's SIGINT, as Ctrl-C would
    assert _group_members(result.pid) == []


async def test_right_after_a_key_the_flood_stands_aside_longer(tmp_path, monkeypatch):
    # The dispatcher's pauses between slices of output: short while nobody types, long for a
    # moment after a key (a dialog to build and paint), and every line still arrives.
    argv = _script(
        tmp_path,
        "flood.py",
        """
        import sys
        for i in range(100_000):
            sys.stdout.write(f"line {i} " + "y" * 40 + "\\n")
        """,
    )
    pauses: list[float] = []
    real_sleep = asyncio.sleep

    async def recording_sleep(delay, *args, **kwargs):
        if delay in (tp._PAUSE_S, tp._UI_PAUSE_S):
            pauses.append(delay)
        return await real_sleep(delay, *args, **kwargs)

    monkeypatch.setattr(tp.asyncio, "sleep", recording_sleep)
    count = 0
    keyed = False

    def on_line(line: OutputLine) -> None:
        nonlocal count, keyed
        count += 1
        if count == 20_000 and not keyed:  # a person presses a key in the middle of the flood
            keyed = True
            tp.favour_ui(3600)

    try:
        await asyncio.wait_for(ChildProcess(argv, on_line=on_line).run(), BOUND_S)
    finally:
        tp.favour_ui(0)
    assert count == 100_000
    first_long = pauses.index(tp._UI_PAUSE_S)
    assert first_long > 0 and set(pauses[:first_long]) == {tp._PAUSE_S}  # before the key: short
    assert set(pauses[first_long:]) == {tp._UI_PAUSE_S}  # after it: long
    assert tp._UI_PAUSE_S >= 4 * tp._PAUSE_S
