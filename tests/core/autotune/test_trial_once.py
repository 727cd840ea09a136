"""Side by side, each trial number runs once: a dropped guess never shares the real trial's files.

On 2 GPUs the pool runs the trial after N ahead, as a guess that N is kept. When N is not kept the
guess is dropped: a cancel that came before its process started must hold, and a guess that did
run is set aside (trial-K.guess/, logs/trial-K.guess.log) before the real trial K starts.
"""

from __future__ import annotations

import asyncio
import re
import sys
import textwrap
from pathlib import Path

from ltx_wizard.core.autotune.sweep.engine import AutotuneEngine
from ltx_wizard.core.autotune.trials.trial_command import TrialCommand
from ltx_wizard.core.autotune.trials.trial_runner import TrialRunner
from ltx_wizard.core.autotune.trials.vram_sampler import NullBackend
from ltx_wizard.core.gpu.assessment import assess
from ltx_wizard.core.gpu.presets import simulated_probe
from ltx_wizard.core.autotune.events import TrialPhase, TrialProgress, TrialStarted
from ltx_wizard.core.tuning.schedule import Candidate
from ltx_wizard.core.tuning.headroom import TrainSettings
from ltx_wizard.demo.sim.stand_in import SimulatedTrainer
from tests.core.autotune.test_autotune_engine import SIM_SPEED, plan_run

BOUND_S = 120  # a safety bound only: the tests end on events


def _engine(run_dir: Path, preset: str, on_event) -> AutotuneEngine:
    probe = simulated_probe(preset)
    return AutotuneEngine(
        run_dir,
        probe=probe,
        assessment=assess(probe),
        stand_in=SimulatedTrainer(preset, speed=SIM_SPEED),
        on_event=on_event,
        grace_s=2.0,
    )


def _trial_logs(run_dir: Path) -> tuple[dict[int, Path], dict[int, list[Path]]]:
    """logs/trial-N.log by N, and the set-aside guesses' logs by N."""
    own, guesses = {}, {}
    for path in (run_dir / "logs").glob("trial-*.log"):
        match = re.fullmatch(r"trial-(\d+)(\.guess(?:-\d+)?)?\.log", path.name)
        assert match, path.name
        index = int(match.group(1))
        if match.group(2):
            guesses.setdefault(index, []).append(path)
        else:
            own[index] = path
    return own, guesses


def _assert_each_index_ran_once(run_dir: Path, summary) -> dict[int, list[Path]]:
    ran = {t.index for t in summary.trials if t.outcome not in ("skipped", "cancelled")}
    own, guesses = _trial_logs(run_dir)
    assert set(own) == ran  # one log per trial that ran, none for a guess nobody recorded
    folders = {
        int(p.name.split("-")[1])
        for p in (run_dir / "overfit").glob("trial-*")
        if re.fullmatch(r"trial-\d+", p.name)
    }
    assert folders == ran
    for index, path in own.items():
        text = path.read_text()
        assert "\0" not in text  # no second writer's offset inside the file
        headers = [line for line in text.splitlines() if line.startswith("# ltx-wizard: trial ")]
        assert len(headers) == 1 and headers[0].startswith(f"# ltx-wizard: trial {index} ")
        footers = [line for line in text.splitlines() if line.startswith("# ltx-wizard: ended")]
        assert footers == [footers[0]] and "(exit)" in footers[0], (path.name, footers)
        assert f"trial-{index}/config.yaml" in headers[0]
    for paths in guesses.values():  # each set-aside log has its folder, and one run each
        for path in paths:
            folder = run_dir / "overfit" / path.name.removesuffix(".log")
            assert folder.is_dir() and (folder / "config.yaml").is_file()
            assert not (folder / "checkpoints").exists()  # pruned like a recorded trial's
            assert path.read_text().count("# ltx-wizard: trial ") == 1
    return guesses


async def test_two_gpus_run_each_trial_once_and_pick_the_sequential_winner(tmp_path):
    run_dir = plan_run(tmp_path / "two", "2xa6000", samples=4)
    events: list = []
    parallel = await asyncio.wait_for(_engine(run_dir, "2xa6000", events.append).run(), BOUND_S)
    assert "side by side" in (run_dir / "autotune.log").read_text()
    _assert_each_index_ran_once(run_dir, parallel)

    one_dir = plan_run(tmp_path / "one", "a6000", samples=4)
    sequential = await asyncio.wait_for(_engine(one_dir, "a6000", None).run(), BOUND_S)
    assert [(t.change, t.outcome, t.kept) for t in parallel.trials] == [
        (t.change, t.outcome, t.kept) for t in sequential.trials
    ]
    assert parallel.winner == sequential.winner
    assert parallel.winner_changes == sequential.winner_changes


async def test_a_guess_dropped_while_running_is_set_aside_before_its_number_runs(tmp_path, monkeypatch):
    """Trial 2 is not kept on 2xa6000 (it leaves under 5% free): the guess of trial 3 that
    assumed it kept is dropped. Trial 2's result waits until that guess has trained a step, so
    the guess is surely running when it is dropped."""
    run_dir = plan_run(tmp_path, "2xa6000", samples=4)
    guess_running = asyncio.Event()
    events: list = []

    def on_event(event) -> None:
        events.append(event)
        if isinstance(event, TrialProgress) and event.index == 3:
            guess_running.set()  # the real trial 3 cannot have started: trial 2 is not recorded

    original = TrialRunner.run

    async def run(self, cand, *args, **kwargs):
        result = await original(self, cand, *args, **kwargs)
        if cand.index == 2:
            await asyncio.wait_for(guess_running.wait(), BOUND_S)
        return result

    monkeypatch.setattr(TrialRunner, "run", run)
    summary = await asyncio.wait_for(_engine(run_dir, "2xa6000", on_event).run(), BOUND_S)
    trial2 = next(t for t in summary.trials if t.index == 2)
    assert trial2.outcome == "ok" and not trial2.kept
    guesses = _assert_each_index_ran_once(run_dir, summary)
    assert [p.name for p in guesses[3]] == ["trial-3.guess.log"]
    guess_log = (run_dir / "logs" / "trial-3.guess.log").read_text()
    assert "ended (cancelled)" in guess_log
    # the real trial 3 (quantized, as trial 2's change was not kept) has its own files
    assert 'Quantizing model with "int8-quanto"' in (run_dir / "logs" / "trial-3.log").read_text()
    assert "Quantizing model with" not in guess_log
    started = [e for e in events if isinstance(e, TrialStarted) and e.index == 3]
    assert [e.ahead_of for e in started] == [2, None]
    dropped = [e for e in events if isinstance(e, TrialPhase) and e.phase == "dropped"]
    assert [e.index for e in dropped] == [3]
    # the drop is reported after the guess's own end, before the real trial 3 starts
    order = [
        e
        for e in events
        if isinstance(e, (TrialStarted, TrialPhase))
        and e.index == 3
        and (isinstance(e, TrialStarted) or e.phase in ("ended", "dropped") and not e.confirmation)
    ]
    assert [getattr(e, "phase", "started") for e in order] == [
        "started",
        "ended",
        "dropped",
        "started",
        "ended",
    ]


def _marker_trainer(tmp_path: Path) -> tuple[list[str], Path]:
    """A trainer that leaves a file behind the moment it runs."""
    marker = tmp_path / "launched"
    script = tmp_path / "train.py"
    script.write_text(
        textwrap.dedent(f"""
        from pathlib import Path
        Path({str(marker)!r}).write_text("ran")
    """)
    )
    return [sys.executable, str(script)], marker


def _cand(index: int = 1) -> Candidate:
    return Candidate(index, "baseline", "baseline", {}, TrainSettings(None, "adamw", 1, 1, True), {})


async def test_a_cancel_before_the_process_starts_holds(tmp_path):
    prefix, marker = _marker_trainer(tmp_path)
    events: list = []
    runner = TrialRunner(TrialCommand(prefix), lambda: NullBackend(1), events.append, grace_s=1.0)
    await runner.cancel()  # the pool drops a guess whose run has not begun yet
    result = await runner.run(
        _cand(), tmp_path / "config.yaml", tmp_path / "out", tmp_path / "logs" / "trial-1.log"
    )
    assert result.outcome == "cancelled"
    assert not marker.exists() and runner.process is None
    assert not (tmp_path / "logs" / "trial-1.log").exists()  # nothing to set aside
    assert not any(isinstance(e, TrialStarted) for e in events)
    # the cancel was that run's: the next one runs
    again = await runner.run(_cand(2), tmp_path / "config.yaml", tmp_path / "out")
    assert marker.exists() and again.outcome != "cancelled"


async def test_a_cancel_while_the_run_sets_up_never_launches_the_process(tmp_path):
    prefix, marker = _marker_trainer(tmp_path)
    runner: TrialRunner

    def on_event(event) -> None:
        if isinstance(event, TrialStarted):  # claimed, no process yet
            asyncio.ensure_future(runner.cancel())

    runner = TrialRunner(TrialCommand(prefix), lambda: NullBackend(1), on_event, grace_s=1.0)
    result = await runner.run(
        _cand(), tmp_path / "config.yaml", tmp_path / "out", tmp_path / "logs" / "trial-1.log"
    )
    assert result.outcome == "cancelled" and not marker.exists()
    assert "ended (cancelled)" in (tmp_path / "logs" / "trial-1.log").read_text()


def test_a_guess_and_its_drop_read_as_such_not_as_a_failure():
    from io import StringIO

    from ltx_wizard.commands.progress import PlainProgress
    from ltx_wizard.core.autotune.outputs import presenter
    from ltx_wizard.core.autotune.sweep.trial_steps import dropped_label

    guess = TrialStarted(
        index=3, change="optimizer adamw8bit -> adamw", total_steps=40, config_path="c", ahead_of=2
    )
    assert presenter.progress_line(guess).endswith("(run ahead, in case trial 2 is kept)")
    assert presenter.running_row(guess).cells[-1] == "run ahead, in case trial 2 is kept"
    plain = TrialStarted(index=3, change="x", total_steps=40, config_path="c")
    assert presenter.progress_line(plain) == "trial 3: x ..." and not presenter.ahead_note(plain)
    drop = TrialPhase(index=3, phase="dropped", label=dropped_label(2, "trial-3.guess"))
    row = presenter.dropped_row(guess, drop)
    assert row.cells[2] == "dropped" and row.cells[1] == guess.change and row.cells[5] == ""
    assert row.cells[6] == (
        "run ahead in case trial 2 was kept; it was not; its files are in overfit/trial-3.guess/"
    )
    out = StringIO()
    progress = PlainProgress(out, clock=lambda: 0.0)
    for event in (guess, drop):
        progress(event)
    assert out.getvalue().splitlines()[-1].startswith("trial 3: dropped: run ahead in case trial 2")


def test_each_set_aside_guess_of_a_number_keeps_its_own_name(tmp_path):
    from ltx_wizard.core.autotune.trials.leftovers import set_aside_guess

    overfit, logs = tmp_path / "overfit", tmp_path / "logs"
    logs.mkdir()
    assert set_aside_guess(overfit, logs, 3, tmp_path) is None  # it never started: nothing moves
    for attempt in (1, 2):
        (overfit / "trial-3" / "checkpoints").mkdir(parents=True)
        (overfit / "trial-3" / "config.yaml").write_text(f"guess {attempt}")
        (logs / "trial-3.log").write_text(f"log {attempt}")
        set_aside_guess(overfit, logs, 3, tmp_path)
    assert (overfit / "trial-3.guess" / "config.yaml").read_text() == "guess 1"
    assert (overfit / "trial-3.guess-2" / "config.yaml").read_text() == "guess 2"
    assert (logs / "trial-3.guess-2.log").read_text() == "log 2"
    assert not (overfit / "trial-3").exists() and not (logs / "trial-3.log").exists()
    assert not (overfit / "trial-3.guess" / "checkpoints").exists()
