"""A hostile world for the Monitor, `status` and resume (#31): a FIFO, a device or a socket for the
log, numbers of 5,000 digits, absurd step counts, broken settings, names that exist in every
form, control and bidi characters. Each ends within seconds with a message, loses nothing, and
the Monitor can always be quit.

Cases that hung the old code run in a child process with a timeout (and a memory cap), so a
regression fails here instead of hanging the suite.
"""

from __future__ import annotations

import json
import os
import resource
import select
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.monitor.resume import apply_resume, plan_resume, saved_checkpoints
from tests.monitor_runs import end, make_run, sample_log, start_live

ROOT = Path(__file__).resolve().parents[2]
STOPPED = sample_log("ok_single_gpu_cols250").split("INFO     🎥 Validation samples for step 50")[0]


def cli(*argv: str, timeout: float = 30.0) -> subprocess.CompletedProcess:
    """`ltx-wizard ARGV` in a child process: a hang is a failure, not a stuck suite."""
    return subprocess.run(
        [sys.executable, "-m", "ltx_wizard", *argv], capture_output=True, text=True, timeout=timeout, cwd=ROOT
    )


def one_line(result: subprocess.CompletedProcess, code: int, *words: str) -> None:
    err = result.stderr.strip()
    assert result.returncode == code, (result.returncode, err)
    assert "internal error" not in err and "Traceback" not in err, err
    assert err.count("\n") == 0 and err.startswith("ltx-wizard: "), err
    for word in words:
        assert word in err, (word, err)


def read_line(stream, timeout_s: float = 20.0) -> str:
    """The child's next line, or "" when none comes in time (a hung child fails the test)."""
    ready, _, _ = select.select([stream], [], [], timeout_s)
    return stream.readline() if ready else ""


def swap_for_fifo(log: Path) -> None:
    log.unlink()
    os.mkfifo(log)


def release(fifo: Path) -> None:
    """Open the FIFO's write end once, so a reader the old code left blocked goes on."""
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:
        pass


# -- (1) the log is not a regular file -------------------------------------------------------


def _socket_at(path: Path) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(path))
    return sock


@pytest.mark.parametrize(
    "kind, words", [("fifo", "a FIFO (named pipe)"), ("device", "a character device"), ("socket", "a socket")]
)
def test_status_names_a_log_that_is_no_file_and_refuses(tmp_path, kind, words):
    run = make_run(tmp_path, STOPPED)
    log = run / "logs" / "train.log"
    log.unlink()
    sock = None
    if kind == "fifo":
        os.mkfifo(log)
    elif kind == "device":
        log.symlink_to("/dev/zero")  # endless: a plain read never ends
    else:
        sock = _socket_at(log)
    try:
        result = cli("status", str(run))
    finally:
        if sock is not None:
            sock.close()
        if kind == "fifo":
            release(log)
    one_line(result, 2, str(log), words, "move it away")


async def test_the_monitor_names_a_fifo_log_and_can_be_quit(tmp_path):
    from tests.tui.helpers import make_app
    from tests.tui.helpers import wait_until as tui_wait

    run = make_run(tmp_path, STOPPED)
    log = run / "logs" / "train.log"
    swap_for_fifo(log)
    app = make_app(run_dir=str(run))
    unblock = threading.Timer(30, release, [log])  # an old reader blocked in open() goes on
    unblock.start()
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            from ltx_wizard.tui.screens.monitor import MonitorScreen

            await tui_wait(pilot, lambda: isinstance(app.screen, MonitorScreen))
            head = app.screen.query_one("#monitor-head")
            await tui_wait(pilot, lambda: "FIFO" in str(head.render()))
            await pilot.press("q")
            await tui_wait(pilot, lambda: app.return_code is not None)
        assert app.return_code == 0
    finally:
        unblock.cancel()
        release(log)


def test_status_watch_survives_the_log_swapped_for_a_fifo(tmp_path):
    run = make_run(tmp_path, STOPPED)
    log = run / "logs" / "train.log"
    trainer = start_live(run)
    watch = subprocess.Popen(
        [sys.executable, "-m", "ltx_wizard", "status", str(run), "--watch", "--json", "--interval", "0.2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        first = json.loads(read_line(watch.stdout))
        assert first["state"] == "live"
        swap_for_fifo(log)
        said = read_line(watch.stderr)  # the next refresh says so, and keeps watching
        assert said.startswith("ltx-wizard: training log") and "FIFO" in said
        assert watch.poll() is None
        end(trainer)
        assert watch.wait(timeout=20) == 2  # the trainer gone: it ends, naming the problem
    finally:
        release(log)
        if watch.poll() is None:
            watch.kill()
        watch.wait()
        end(trainer)


# -- (2) resume planning takes no time per step ----------------------------------------------


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def test_resume_plans_an_absurd_step_count_at_once(tmp_path):
    run = make_run(tmp_path, "", steps=50, checkpoints=((20, True), (40, True)))
    config = run / "config.yaml"
    config.write_text(config.read_text().replace("steps: 50", "steps: " + "1" + "0" * 31))
    code = (
        "import sys; from ltx_wizard.core.monitor.resume import plan_resume; "
        "p = plan_resume(sys.argv[1]); print(p.start_step, p.total_steps)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(run)],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=ROOT,
        preexec_fn=_limit_memory,
    )
    assert result.returncode == 0, result.stderr[-400:]
    assert result.stdout.split() == ["40", "1" + "0" * 31]


# -- (3) backups and output folders are never overwritten ------------------------------------


def test_two_resumes_keep_both_earlier_configs(tmp_path):
    run = make_run(tmp_path, "", steps=100, checkpoints=((40, True),))
    first = (run / "config.yaml").read_text()
    backup, _ = apply_resume(run, plan_resume(run))
    assert backup.name == "config.before-resume.yaml"
    config = run / "config.yaml"
    config.write_text(config.read_text().replace("steps: 100", "steps: 200"))
    second = config.read_text()
    backup2, _ = apply_resume(run, plan_resume(run))
    assert backup2.name == "config.before-resume.2.yaml"  # the newest, named to the user
    assert backup.read_text() == first and backup2.read_text() == second


def test_two_fixes_keep_both_earlier_configs(tmp_path):
    from ltx_wizard.core.monitor.fix import apply_fix, plan_fix

    run = make_run(tmp_path, sample_log("oom_cols80"), gc=False)
    before = (run / "config.yaml").read_text()
    (run / "config.before-fix.yaml").symlink_to(tmp_path / "nowhere")  # a dangling link: taken
    backup = apply_fix(run, plan_fix(run, {"optimization.enable_gradient_checkpointing": True}))
    assert backup.name == "config.before-fix.2.yaml" and backup.read_text() == before
    middle = (run / "config.yaml").read_text()
    backup2 = apply_fix(run, plan_fix(run, {"optimization.batch_size": 1}))
    assert backup2.name == "config.before-fix.3.yaml" and backup2.read_text() == middle
    assert os.path.islink(run / "config.before-fix.yaml")  # untouched


@pytest.mark.parametrize("form", ["file", "folder", "link", "dangling link"])
def test_a_resumed_output_folder_name_taken_in_any_form_is_not_chosen(tmp_path, form):
    run = make_run(tmp_path, "", steps=100, checkpoints=((20, True), (40, False)))
    taken = run / "outputs-resumed-from-40"
    if form == "file":
        taken.write_text("x")
    elif form == "folder":
        taken.mkdir()
    elif form == "link":
        (tmp_path / "elsewhere").mkdir()
        taken.symlink_to(tmp_path / "elsewhere")
    else:
        taken.symlink_to(tmp_path / "gone")
    plan = plan_resume(run)
    assert plan.changes["output_dir"] == str(run / "outputs-resumed-from-40-2")


def test_a_resumed_output_folder_that_appears_after_planning_is_refused(tmp_path):
    run = make_run(tmp_path, "", steps=100, checkpoints=((20, True), (40, False)))
    plan = plan_resume(run)
    before = (run / "config.yaml").read_text()
    Path(plan.changes["output_dir"]).symlink_to(tmp_path / "gone")
    with pytest.raises(UsageError, match="exists now"):
        apply_resume(run, plan)
    assert (run / "config.yaml").read_text() == before
    assert not (run / "config.before-resume.yaml").exists()


# -- (4) broken settings never raise out of resume, and the Monitor stays ---------------------


@pytest.mark.parametrize(
    "old, new, key",
    [
        ("steps: 100", 'steps: "abc"', "optimization.steps"),
        ("steps: 100", "steps: [1, 2]", "optimization.steps"),
        ("interval: 20", 'interval: "x"', "checkpoints.interval"),
        ("steps: 100", "steps: " + "9" * 5000, "config.yaml"),
    ],
)
def test_broken_settings_are_a_message_from_resume(tmp_path, old, new, key):
    run = make_run(tmp_path, "", steps=100, checkpoints=((20, True), (40, False)))
    config = run / "config.yaml"
    config.write_text(config.read_text().replace(old, new, 1))
    with pytest.raises(UsageError) as caught:
        plan_resume(run)
    assert key in caught.value.message and len(caught.value.message) < 200


async def test_the_monitor_answers_r_on_a_broken_config_with_a_message(tmp_path):
    from ltx_wizard.tui.dialogs.config_change import ConfigChangeDialog
    from ltx_wizard.tui.screens.monitor import MonitorScreen
    from tests.tui.helpers import make_app, settle
    from tests.tui.helpers import wait_until as tui_wait

    run = make_run(tmp_path, STOPPED, checkpoints=((20, True), (40, True)))
    config = run / "config.yaml"
    config.write_text(config.read_text().replace("steps: 50", "steps: [1, 2]"))
    app = make_app(run_dir=str(run))
    async with app.run_test(size=(120, 40)) as pilot:
        await tui_wait(pilot, lambda: isinstance(app.screen, MonitorScreen) and app.screen.status is not None)
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, MonitorScreen) and not isinstance(app.screen, ConfigChangeDialog)
        said = [n.message for n in app._notifications]
        assert any("optimization.steps is [1, 2]" in m for m in said), said
        await pilot.press("q")
        await tui_wait(pilot, lambda: app.return_code is not None)


# -- (5) 5,000-digit numbers ------------------------------------------------------------------

HUGE = "9" * 5000


@pytest.mark.parametrize(
    "where", ["step", "checkpoint", "validation", "launch pid", "pid file", "time per step", "statistics"]
)
def test_a_5000_digit_number_from_the_trainer_side_is_no_internal_error(tmp_path, where):
    lines = {
        "step": f"INFO     Step {HUGE}/50 - Loss: 0.2, LR: 1e-4, Time/Step: 1.5s, Total Time: 0h 1m\n",
        "checkpoint": f"INFO     💾 Lora weights for step {HUGE} saved in checkpoints/x.safetensors\n",
        "validation": f"INFO     🎥 Validation samples for step {HUGE} saved in samples\n",
        "launch pid": f"=== 2026-01-02T03:04:00Z launch.sh started, pid {HUGE}\n",
        "pid file": "",
        "time per step": "INFO     Step 20/50 - Loss: 0.2, LR: 1e-4, Time/Step: 1.2.3s, Total Time: 0h 1m\n",
        "statistics": "INFO     📊 Training Statistics:\n          - Total time: 1.2.3 minutes\n"
        f"          - Number of processes: {HUGE}\n",
    }
    run = make_run(tmp_path, STOPPED + lines[where])
    if where == "pid file":
        (run / "logs" / "train.pid").write_text(f"{HUGE} 123\n")
    result = cli("status", "--json", str(run))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["state"] in ("stopped", "finished")


# -- (6) names that look like the trainer's but are not ---------------------------------------


def test_a_checkpoint_name_ending_in_a_newline_is_not_the_latest(tmp_path):
    run = make_run(tmp_path, STOPPED, checkpoints=((20, True), (40, True)))
    folder = run / "outputs" / "checkpoints"
    (folder / "lora_weights_step_00090.safetensors\n").write_bytes(b"planted")
    (folder / "training_state_step_00090.pt\n").write_bytes(b"planted")
    assert [c.step for c in saved_checkpoints(run / "outputs")] == [40, 20]
    assert plan_resume(run).checkpoint.step == 40


# -- (7) scale: bounded work per call ---------------------------------------------------------


def _step(step: int, total: int = 10**6) -> str:
    text = (
        f"INFO     Step {step}/{total} - Loss: 0.2000, LR: 1.00e-04, Time/Step: 1.50s, Total Time: 416h 40m"
    )
    return text.ljust(235) + " trainer.py:307\n"


def _count_parsed(monkeypatch) -> list[int]:
    from ltx_wizard.core.trainer_output import line_parser

    fed = [0]
    feed = line_parser.TrainerLogParser.feed

    def counting(self, line, t):
        fed[0] += 1
        return feed(self, line, t)

    monkeypatch.setattr(line_parser.TrainerLogParser, "feed", counting)
    return fed


def test_a_long_log_is_skimmed_and_a_second_call_reads_only_the_new_bytes(tmp_path, monkeypatch):
    from ltx_wizard.core.trainer_output.history_scan import HistoryScan
    from ltx_wizard.core.monitor.status import RunMonitor

    run = make_run(tmp_path, "".join(_step(s) for s in range(20, 200_001, 20)), steps=10**6)
    fed = _count_parsed(monkeypatch)
    first = RunMonitor(run, gpu_reader=lambda v: ([], None)).status()
    assert first.step == 200_000 and fed[0] < 2_000  # only the tail went through the parser
    scanned = []
    scan = HistoryScan.scan
    monkeypatch.setattr(HistoryScan, "scan", lambda self, a, b: (scanned.append((a, b)), scan(self, a, b))[1])
    with (run / "logs" / "train.log").open("a") as fh:
        fh.write("".join(_step(s) for s in range(200_020, 220_001, 20)))
    second = RunMonitor(run, gpu_reader=lambda v: ([], None)).status()  # as a new process
    assert second.step == 220_000 and second.points and second.first_loss == (20, 0.2)
    size = (run / "logs" / "train.log").stat().st_size
    assert scanned and scanned[0][0] > size - (6 << 20)  # from the cursor, not from byte 0


def test_a_refresh_far_behind_a_fast_writer_reads_the_tail_and_sees_the_end(tmp_path, monkeypatch):
    from ltx_wizard.core.monitor.status import RunMonitor

    run = make_run(tmp_path, _step(20), steps=10**6)
    monitor = RunMonitor(run, gpu_reader=lambda v: ([], None))
    monitor.status()
    fed = _count_parsed(monkeypatch)
    statistics = "".join(sample_log("ok_single_gpu_cols250").splitlines(keepends=True)[-5:])
    with (run / "logs" / "train.log").open("a") as fh:  # ~64 MB between two refreshes, then the end
        for start in range(40, 5_120_001, 400_000):
            fh.write("".join(_step(s) for s in range(start, min(start + 400_000, 5_120_001), 20)))
        fh.write(statistics)
    status = monitor.status()
    assert status.state == "finished" and status.train_minutes == 1.9
    assert status.points[-1][0] > 5_000_000  # the history up to the tail was skimmed, not lost
    assert fed[0] < 5_000  # the tail went through the parser, not 256,000 lines


def test_status_watch_ends_at_the_next_refresh_after_the_trainer(tmp_path):
    run = make_run(tmp_path, STOPPED)
    trainer = start_live(run)
    watch = subprocess.Popen(
        [sys.executable, "-m", "ltx_wizard", "status", str(run), "--watch", "--json", "--interval", "0.5"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        assert json.loads(read_line(watch.stdout))["state"] == "live"
        end(trainer)
        ended = time.monotonic()
        states = [json.loads(line)["state"] for line in watch.stdout]
        assert watch.wait(timeout=20) == 0
        assert states[-1] == "stopped" and states.count("live") <= 1
        assert time.monotonic() - ended < 10
    finally:
        if watch.poll() is None:
            watch.kill()
        watch.wait()


# -- (9) --json escapes every control and bidi character --------------------------------------


def test_status_json_escapes_controls_and_bidi(tmp_path):
    nasty = "a\x85b\x9bc\u2028d\u2029e\u202ef\u2066g\u2069h\x7f"
    run = make_run(tmp_path, STOPPED, checkpoints=((20, True),))
    config = run / "config.yaml"
    target = tmp_path / f"out{nasty}"
    config.write_text(
        config.read_text().replace(
            f"output_dir: {run / 'outputs'}",  # YAML escapes
            f"output_dir: {json.dumps(str(target))}",
        )
    )
    (run / "outputs").rename(target)
    result = cli("status", "--json", str(run))
    assert result.returncode == 0, result.stderr
    bad = [
        c
        for c in result.stdout
        if ord(c) < 0x20
        and c != "\n"
        or 0x7F <= ord(c) <= 0x9F
        or c in "\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
    ]
    assert not bad, bad
    doc = json.loads(result.stdout)
    assert doc["output_dir"] == str(target)  # the same value, escaped
    assert doc["checkpoints"][0]["path"].startswith(str(target))
