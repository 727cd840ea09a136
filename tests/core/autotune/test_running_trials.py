"""The Autotune screen's live rows, from the engine's events: one per running trial, with its GPU,
phase, step and elapsed time, gone when its process ends or its result arrives."""

from __future__ import annotations

import pytest

from ltx_wizard.core.autotune.outputs.presenter import clock_text
from ltx_wizard.core.autotune.outputs.live_rows import RunningTrials, gpus_text, more_text
from ltx_wizard.core.autotune.events import (
    AutotuneFinished,
    ConfirmationFinished,
    ConfirmationStarted,
    TrialFinished,
    TrialPhase,
    TrialProgress,
    TrialStarted,
)
from ltx_wizard.core.tuning.results import AutotuneSummary, Confirmation, TrialResult


class Clock:
    def __init__(self, now: float = 100.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def started(index: int, total: int = 40) -> TrialStarted:
    return TrialStarted(index=index, change=f"change {index}", total_steps=total, config_path="c")


def phase(index: int, key: str, confirmation: bool = False) -> TrialPhase:
    return TrialPhase(index=index, phase=key, label=key, confirmation=confirmation)


def finished(index: int) -> TrialFinished:
    return TrialFinished(result=TrialResult(index=index, change="x", outcome="ok"))


def texts(tracker: RunningTrials) -> list[str]:
    return [row.text for row in tracker.rows()]


@pytest.mark.parametrize(
    "seconds, text",
    [
        (0, "0:00"),
        (7.9, "0:07"),
        (65, "1:05"),
        (599, "9:59"),
        (3600, "1:00:00"),
        (3723, "1:02:03"),
        (-3, "0:00"),
    ],
)
def test_clock_text(seconds, text):
    assert clock_text(seconds) == text


def test_gpus_text():
    assert gpus_text((1,)) == "GPU 1"
    assert gpus_text((0, 1, 2, 3)) == "GPUs 0-3"
    assert gpus_text((0, 2)) == "GPUs 0,2"
    assert gpus_text(()) == "GPU ?"


def test_a_started_trial_has_a_row_with_its_gpu_and_no_step_yet():
    clock = Clock()
    tracker = RunningTrials(clock=clock)
    assert tracker.feed(started(3))
    assert texts(tracker) == ["trial 3 · GPU 0 · starting · step 0/40 · 0:00"]
    clock.now += 65
    assert texts(tracker) == ["trial 3 · GPU 0 · starting · step 0/40 · 1:05"]


def test_progress_and_phase_changes_update_the_row():
    clock = Clock()
    tracker = RunningTrials(clock=clock)
    tracker.feed(started(1))
    assert tracker.feed(phase(1, "loading"))
    assert texts(tracker) == ["trial 1 · GPU 0 · loading model · step 0/40 · 0:00"]
    tracker.feed(phase(1, "training"))
    assert tracker.feed(TrialProgress(index=1, step=12, total=40, loss=0.2))
    clock.now += 3725
    row = tracker.rows()[0]
    assert (row.phase, row.step, row.total) == ("training", 12, 40)
    assert row.text == "trial 1 · GPU 0 · training · step 12/40 · 1:02:05"
    tracker.feed(phase(1, "validating"))
    assert "validating" in texts(tracker)[0]


def test_a_finished_trial_is_gone():
    tracker = RunningTrials(clock=Clock())
    tracker.feed(started(1))
    tracker.feed(phase(1, "ended"))
    assert tracker.feed(finished(1))
    assert tracker.rows() == []


def test_a_trial_ahead_that_ended_reads_done_with_its_clock_stopped_until_its_result():
    clock = Clock()
    tracker = RunningTrials(slots=[0, 1], clock=clock)
    tracker.feed(started(1))
    tracker.feed(started(2))
    tracker.feed(TrialProgress(index=2, step=40, total=40))
    clock.now += 30
    tracker.feed(phase(2, "ended"))  # ahead of trial 1: its result waits for trial 1's
    clock.now += 30
    assert texts(tracker)[1] == "trial 2 · GPU 1 · done · step 40/40 · 0:30"
    assert not tracker.feed(TrialProgress(index=2, step=41, total=40))  # the end is the end
    tracker.feed(finished(1))
    tracker.feed(finished(2))
    assert tracker.rows() == []


def test_a_done_row_gives_its_gpu_up_to_the_next_trial():
    tracker = RunningTrials(slots=[0, 1], clock=Clock())
    tracker.feed(started(1))
    tracker.feed(started(2))
    tracker.feed(phase(2, "ended"))
    tracker.feed(started(3))  # GPU 1 is free again
    assert [(r.index, r.gpus, r.phase) for r in tracker.rows()] == [
        (1, (0,), "starting"),
        (3, (1,), "starting"),
    ]


def test_a_dropped_guess_is_gone_and_frees_its_gpu():
    tracker = RunningTrials(slots=[0, 1], clock=Clock())
    tracker.feed(started(1))
    tracker.feed(started(2))
    assert tracker.feed(phase(2, "dropped"))
    assert [r.index for r in tracker.rows()] == [1]
    tracker.feed(started(3))
    assert texts(tracker)[1].startswith("trial 3 · GPU 1 ·")


def test_two_trials_on_two_gpus_take_the_first_free_gpu_as_the_pool_does():
    clock = Clock()
    tracker = RunningTrials(slots=[0, 1], launch_gpus=2, clock=clock)
    tracker.feed(started(1))
    clock.now += 10
    tracker.feed(started(2))
    tracker.feed(TrialProgress(index=2, step=20, total=40))
    clock.now += 5
    assert texts(tracker) == [
        "trial 1 · GPU 0 · starting · step 0/40 · 0:15",
        "trial 2 · GPU 1 · starting · step 20/40 · 0:05",
    ]
    tracker.feed(phase(1, "ended"))  # GPU 0 is free: the next trial goes there
    tracker.feed(finished(1))
    tracker.feed(started(3))
    assert [(r.index, r.gpus) for r in tracker.rows()] == [(3, (0,)), (2, (1,))]  # by GPU


def test_one_launch_on_every_gpu_of_the_plan():
    tracker = RunningTrials(slots=[], launch_gpus=2, clock=Clock())
    tracker.feed(started(1))
    assert texts(tracker) == ["trial 1 · GPUs 0-1 · starting · step 0/40 · 0:00"]


def test_an_unknown_length_shows_the_step_alone():
    tracker = RunningTrials(clock=Clock())
    tracker.feed(started(1, total=0))
    assert texts(tracker) == ["trial 1 · GPU 0 · starting · 0:00"]
    tracker.feed(TrialProgress(index=1, step=7, total=0))
    assert texts(tracker) == ["trial 1 · GPU 0 · starting · step 7 · 0:00"]


def test_an_unknown_phase_reads_as_its_own_key():
    tracker = RunningTrials(clock=Clock())
    tracker.feed(started(1))
    tracker.feed(phase(1, "compiling"))
    assert "· compiling ·" in texts(tracker)[0]


def test_the_confirmation_has_its_own_row_on_every_gpu():
    clock = Clock()
    tracker = RunningTrials(slots=[0, 1], launch_gpus=2, clock=clock)
    tracker.feed(ConfirmationStarted(trial=3, gpus=2))
    tracker.feed(phase(3, "validating", confirmation=True))
    tracker.feed(TrialProgress(index=3, step=2, total=2))
    clock.now += 40
    assert texts(tracker) == ["confirm trial 3 · GPUs 0-1 · validating · step 2/2 · 0:40"]
    assert not tracker.feed(phase(3, "training"))  # the trial itself is not running
    conf = Confirmation(trial=3, outcome="ok", gpus=2)
    assert tracker.feed(ConfirmationFinished(confirmation=conf))
    assert tracker.rows() == []


def test_events_for_trials_it_never_saw_change_nothing():
    tracker = RunningTrials(clock=Clock())
    assert not tracker.feed(TrialProgress(index=9, step=1, total=40))
    assert not tracker.feed(phase(9, "training"))
    assert tracker.rows() == []


def test_the_end_of_autotune_clears_every_row():
    tracker = RunningTrials(slots=[0, 1], clock=Clock())
    tracker.feed(started(1))
    tracker.feed(started(2))
    summary = AutotuneSummary(trials=[], winner=None, config_patched=False)
    assert tracker.feed(AutotuneFinished(summary=summary))
    assert tracker.rows() == []


def test_the_rows_that_do_not_fit_are_named_on_one_line():
    tracker = RunningTrials(slots=[0, 1, 2], clock=Clock())
    for i in (4, 5, 6):
        tracker.feed(started(i))
    assert more_text(tracker.rows()[1:]) == "+2 more running: trials 5, 6"
    assert more_text(tracker.rows()[2:]) == "+1 more running: trial 6"
