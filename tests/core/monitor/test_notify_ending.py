"""How a run ended, decided from its records (the trainer's real log samples), its one line, the
stall rule, autotune's end, and each ending notified once (logs/notified.json)."""

from __future__ import annotations

import json
import os

import pytest

from ltx_wizard.core.monitor.notify_ending import (
    STALL_INTERVALS,
    STEP_LINE_EVERY,
    StallWatch,
    autotune_ending,
    run_ending,
)
from ltx_wizard.core.monitor.notify_record import PingWatch, claim, sent_before
from ltx_wizard.core.monitor.status import RunMonitor
from ltx_wizard.core.tuning.results import AutotuneSummary, TrialResult
from tests.monitor_runs import end, make_run, sample_log, start_live

OK = sample_log("ok_single_gpu_cols250")
STOPPED = OK.split("INFO     🎥 Validation samples for step 50")[0]


def _status(run):
    return RunMonitor(run).status(gpus=False)


# (log sample, cause, words of its line): each line names the run, the step and the last loss
CASES = [
    ("ok_single_gpu_cols250", "done", "run: training done at step 50 of 50, last loss 0.1904"),
    ("oom_cols80", "failed-oom", "run: failed, out of GPU memory in training"),
    ("oom_validation_cols80", "failed-oom", "out of GPU memory in a validation pass"),
    (
        "nan_loss",
        "failed-nan",
        "the loss is NaN from step 40 (the trainer finished at step 50), last loss 0.2437",
    ),
    ("real_config_errors_cols80", "crashed", "run: the trainer crashed before its first step line (config)"),
    ("real_validation_crash_cols250", "crashed", "run: the trainer crashed"),
]


@pytest.mark.parametrize(("sample", "cause", "words"), CASES)
def test_each_ending_has_its_cause_and_line(tmp_path, sample, cause, words):
    ending = run_ending(_status(make_run(tmp_path, sample_log(sample))))
    assert ending is not None and ending.cause == cause, ending
    assert words in ending.text and ending.run == "run"
    assert cause == "crashed" or ";" not in ending.text  # ours never needs the `;` an OSC 777 field loses
    assert ending.key.startswith(f"{cause}@1:2026-01-02T03:04:00Z:4321")
    json.dumps(ending.as_json(), allow_nan=False)  # what --notify-url posts is strict JSON


def test_texts_differ_per_cause(tmp_path):
    texts = set()
    for i, (sample, _, _) in enumerate(CASES):
        ending = run_ending(_status(make_run(tmp_path / str(i), sample_log(sample))))
        assert ending is not None
        texts.add(ending.text)
    assert len(texts) == len(CASES)


def test_a_log_that_just_stops_is_stopped_and_a_live_one_is_no_ending(tmp_path):
    run = make_run(tmp_path, STOPPED)
    ending = run_ending(_status(run))
    assert ending is not None and ending.cause == "stopped"
    assert (
        ending.text
        == "run: training stopped at step 40 with no error in its log (stopped, or killed), last loss 0.1904"
    )
    proc = start_live(run)
    try:
        assert run_ending(_status(run)) is None
    finally:
        end(proc)


def test_a_live_run_without_a_new_step_for_five_step_line_intervals_is_stalled(tmp_path):
    run = make_run(tmp_path, STOPPED)
    proc = start_live(run)
    try:
        status = _status(run)
        assert status.state == "live" and status.s_per_step is not None
        limit = STALL_INTERVALS * STEP_LINE_EVERY * status.s_per_step
        now = [1_000_000.0]
        os.utime(run / "logs" / "train.log", (now[0] - 10, now[0] - 10))
        watch = StallWatch(clock=lambda: now[0])
        assert watch.observe(status) is None  # first look: quiet since the log's last write
        now[0] += limit - 11
        assert watch.observe(status) is None
        wrote = now[0]
        os.utime(run / "logs" / "train.log", (wrote, wrote))  # the trainer wrote a line
        now[0] += limit - 1
        assert watch.observe(status) is None
        now[0] += 2
        stalled = watch.observe(status)
        assert stalled is not None and stalled.cause == "stalled"
        assert stalled.text.startswith("run: stalled at step 40: no step line for 5 step-line intervals")
        # a watcher started again counts from the log's last write
        assert StallWatch(clock=lambda: wrote + limit - 1).observe(status) is None
        assert StallWatch(clock=lambda: wrote + limit + 1).observe(status) is not None
    finally:
        end(proc)


def test_a_screen_notifies_an_ending_it_saw_happen_once(tmp_path):
    run = make_run(tmp_path, STOPPED)
    done = PingWatch(run)
    assert done.due(_status(run)) is None  # over when the screen opened: shown, not sent
    proc = start_live(run)
    watch = PingWatch(run)
    try:
        assert watch.due(_status(run)) is None
    finally:
        end(proc)
    ending = watch.due(_status(run))
    assert ending is not None and ending.cause == "stopped"
    assert watch.due(_status(run)) is None  # once
    assert sent_before(run, ending) is not None
    assert not claim(run, ending)  # a second watcher (a new process) does not send it again
    record = json.loads((run / "logs" / "notified.json").read_text())
    assert record["version"] == 1 and [s["cause"] for s in record["sent"]] == ["stopped"]


def test_a_damaged_record_reads_as_nothing_sent(tmp_path):
    run = make_run(tmp_path, OK)
    (run / "logs" / "notified.json").write_text("{not json")
    ending = run_ending(_status(run))
    assert ending is not None and claim(run, ending) and not claim(run, ending)


def _trial(index: int, outcome: str = "ok", step_time_s: float | None = 2.5) -> TrialResult:
    return TrialResult(index=index, change="baseline", outcome=outcome, step_time_s=step_time_s)


def test_autotune_endings(tmp_path):
    won = AutotuneSummary(trials=[_trial(1), _trial(2, step_time_s=1.75)], winner=2, config_patched=True)
    assert (
        autotune_ending(tmp_path / "r", won, None).text == "r: autotune finished, trial 2 wins, 1.75 s/step"
    )
    none = AutotuneSummary(
        trials=[_trial(1, "oom")], winner=None, config_patched=False, stop_reason="all OOM"
    )
    assert (
        autotune_ending(tmp_path / "r", none, None).text == "r: autotune finished without a winner: all OOM"
    )
    failed = autotune_ending(tmp_path / "r", None, "the trainer\x1b[31m is gone")
    assert failed.text == "r: autotune stopped: the trainer is gone" and failed.cause == "autotune-finished"
