"""Autotune on the simulator decides on the simulator's own step clock (demo/sim/step_clock.py):
the same step times, and so the same choices, however fast it runs and however busy the machine
is (a real trainer's step lines are still timed by when they arrive)."""

from __future__ import annotations

from ltx_wizard.core.base.stand_in import TRAINING_STARTED, step_moment, validated_moment
from ltx_wizard.demo.sim.step_clock import StepClockReader, StepStamps
from tests.core.autotune.test_autotune_engine import _engine, plan_run


def test_a_process_stamps_its_step_lines_afresh_and_the_reader_finds_them(tmp_path):
    path = tmp_path / ".sim-step-clock"
    first = StepStamps(str(path))
    first.stamp(TRAINING_STARTED, 12.0)
    first.stamp(step_moment(20), 61.5)
    first.stamp(step_moment(40), 123.25)
    first.stamp(validated_moment(40), 150.5)
    reader = StepClockReader(path)
    assert [reader(step_moment(s)) for s in (20, 40, 60)] == [61.5, 123.25, None]
    assert (reader(TRAINING_STARTED), reader(validated_moment(40)), reader(validated_moment(20))) == (
        12.0,
        150.5,
        None,
    )
    StepStamps(str(path))  # the next trial's process: no time of the last one is read for it
    assert reader(step_moment(20)) is None
    assert StepClockReader(tmp_path / "missing")(step_moment(20)) is None


async def test_step_times_and_choices_do_not_depend_on_how_fast_the_simulator_sleeps(tmp_path):
    runs, confirmed = [], []
    for speed in ("500", "4000"):
        run_dir = plan_run(tmp_path / speed, "a6000")
        summary = await _engine(run_dir, "a6000", [], sim_env={"LTX_WIZARD_SIM_SPEED": speed}).run()
        runs.append([(t.change, t.outcome, t.step_time_s, t.kept) for t in summary.trials])
        confirmed.append(summary.confirmation and summary.confirmation.trained_to_validated_s)
    assert runs[0] == runs[1]
    # the validation pass the duration estimate counts is timed on the same clock
    assert confirmed[0] and confirmed[0] == confirmed[1]
    assert any(step for _, outcome, step, _ in runs[0] if outcome == "ok")
