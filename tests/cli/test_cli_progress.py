"""`ltx-wizard autotune`'s progress: plain phase lines on a pipe (no control characters), rich's
live rows on a terminal, and the same result lines either way."""

from __future__ import annotations

import fcntl
import io
import os
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

from ltx_wizard.cli import main
from ltx_wizard.commands.progress import LiveProgress, PlainProgress
from ltx_wizard.core.autotune import events
from ltx_wizard.core.tuning import results
from ltx_wizard.core.autotune.outputs.presenter import human_line
from tests.core.autotune.test_autotune_engine import plan_run

ROOT = Path(__file__).resolve().parents[2]
ESC = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
RESULT = results.TrialResult(
    index=1, change="baseline", outcome="ok", step_time_s=4.5, peak_vram_gb=33.7, kept=True
)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def phase(name: str, label: str, index: int = 1, confirmation: bool = False) -> events.TrialPhase:
    return events.TrialPhase(index=index, phase=name, label=label, confirmation=confirmation)


def a_trial(clock: Clock) -> list[tuple[float, events.AutotuneEvent]]:
    """(seconds into the trial, event) as a trial's run sends them."""
    return [
        (0, events.TrialStarted(index=1, change="baseline", total_steps=40, config_path="c.yaml")),
        (0, phase("starting", "starting")),
        (12, phase("loading", "loading the model")),
        (75, phase("quantizing", "quantizing the model")),
        (250, phase("training", "training")),
        (340, events.TrialProgress(index=1, step=20, total=40, step_time_s=4.31)),
        (430, phase("saving", "saving the weights")),
        (431, phase("ended", "ended")),
        (431, events.TrialFinished(result=RESULT)),
    ]


def test_piped_progress_says_each_phase_with_the_time_taken(tmp_path):
    clock, out = Clock(), io.StringIO()
    printer = PlainProgress(out, clock)
    start = clock.now
    for at, event in a_trial(clock):
        clock.now = start + at
        printer(event)
    lines = out.getvalue().splitlines()
    assert lines == [
        "trial 1: baseline ...",
        "trial 1: loading the model (12 s)",
        "trial 1: quantizing the model (1 min 15 s)",
        "trial 1: training (4 min 10 s)",
        "  step 20/40, 4.31 s/step",
        "trial 1: saving the weights (7 min 10 s)",
        "  " + human_line(RESULT),
    ]
    assert "\x1b" not in out.getvalue()


def test_a_confirmations_phases_are_its_own(tmp_path):
    clock, out = Clock(), io.StringIO()
    printer = PlainProgress(out, clock)
    printer(events.ConfirmationStarted(trial=3, gpus=2))
    clock.now += 42
    printer(phase("validating", "training to step 2, then validating", index=3, confirmation=True))
    assert out.getvalue().splitlines()[-1] == (
        "confirmation of trial 3: training to step 2, then validating (42 s)"
    )


def live(clock: Clock):
    from rich.console import Console

    stream = io.StringIO()
    console = Console(file=stream, force_terminal=True, width=100, color_system="standard")
    return LiveProgress(console, clock, auto_refresh=False), stream


def test_a_terminal_shows_a_live_row_per_running_trial():
    clock = Clock()
    display, stream = live(clock)
    start = clock.now
    for at, event in a_trial(clock)[:6]:
        clock.now = start + at
        display(event)
        display._progress.refresh()
    assert "\x1b[" in stream.getvalue()  # a terminal: rich draws and redraws the row
    text = ESC.sub("", stream.getvalue())
    assert "trial 1  baseline" in text and "loading the model" in text and "0:00:12" in text
    assert "quantizing the model" in text and "0:01:15" in text
    assert "training, step 20/40 (4.31 s/step)" in text and "0:05:40" in text
    # a second trial side by side gets its own row
    display(events.TrialStarted(index=2, change="quantization -> null", total_steps=40, config_path="c.yaml"))
    assert len(display._progress.tasks) == 2
    for _, event in a_trial(clock)[6:]:
        display(event)
    display.close()
    assert [t.description for t in display._progress.tasks] == ["trial 2  quantization -> null"]
    assert "  " + human_line(RESULT) in ESC.sub("", stream.getvalue())  # the usual result line


def test_two_runs_of_one_trial_number_share_a_row_until_both_end():
    # side by side, the pool can guess two configs for the next trial number at once
    display, _ = live(Clock())
    started = events.TrialStarted(index=3, change="optimizer -> adamw", total_steps=40, config_path="c.yaml")
    display(started)
    display(started)
    display(phase("ended", "ended", index=3))
    assert len(display._progress.tasks) == 1
    display(phase("ended", "ended", index=3))
    assert display._progress.tasks == []
    display.close()


def test_the_cli_piped_prints_the_simulated_trainers_phases(tmp_path, capsys):
    run_dir = plan_run(tmp_path, "a6000")
    capsys.readouterr()
    assert main(["autotune", str(run_dir), "--simulate", "a6000", "--max-trials", "2"]) == 0
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\r" not in err
    lines = err.splitlines()
    first = lines.index("trial 1: baseline ...")
    said = [re.sub(r" \(\d+ s\)$", "", line) for line in lines[first + 1 : first + 4]]
    assert said == ["trial 1: loading the model", "trial 1: quantizing the model", "trial 1: training"]
    assert "trial 1: saving the weights" in err and "  step 40/40" in err


def _run_in_a_terminal(argv: list[str], timeout_s: float = 120.0) -> tuple[int, str]:
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=ROOT, start_new_session=True
    )
    os.close(slave)
    chunks, deadline = [], time.monotonic() + timeout_s
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], deadline - time.monotonic())
            if not ready:
                break
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the program ended and the terminal closed
                break
            if not data:
                break
            chunks.append(data)
        return proc.wait(timeout=30), b"".join(chunks).decode("utf-8", "replace")
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()


def test_the_cli_on_a_terminal_draws_rows_then_leaves_the_usual_lines(tmp_path):
    run_dir = plan_run(tmp_path, "a6000")
    code, screen = _run_in_a_terminal(
        [
            sys.executable,
            "-m",
            "ltx_wizard",
            "--simulate",
            "a6000",
            "autotune",
            str(run_dir),
            "--max-trials",
            "2",
        ]
    )
    assert code == 0, screen[-2000:]
    text = ESC.sub("", screen)
    assert "\x1b[" in screen and "trial 1  baseline · starting 0:00:00" in text  # drawn as it starts
    assert "trial 1: loading the model" not in text  # the plain lines are the pipe's
    assert re.search(r"\n  trial 1  baseline +ok", text.replace("\r", "\n"))
    assert "Autotune of " in text and "Winner: trial" in text


def test_rich_is_imported_only_for_the_live_display():
    code = (
        "import sys\nfrom ltx_wizard.commands.progress import autotune_progress\n"
        "autotune_progress(json_mode=False)\nprint('rich' in sys.modules)\n"
    )
    piped = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert piped.stdout.strip() == "False"
