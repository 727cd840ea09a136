"""Issue 43, Deliver 4: eval's own lifecycle. `eval --stop` signals only this run's evaluation
(never a process a planted or stale eval.pid names, start time and all); two starts at once give
one evaluation and one refusal."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.evaluation import job_process
from ltx_wizard.core.io import run_folder
from ltx_wizard.core.io.pid_records import record_text

SLEEPER = "import sys, time; time.sleep(120)"


def _run_folder(tmp_path: Path) -> Path:
    run = tmp_path / "run"
    (run / "logs").mkdir(parents=True)
    (run / "config.yaml").write_text("model: {}\n")
    return run


@pytest.fixture
def started():
    procs: list[subprocess.Popen] = []
    yield procs
    for proc in procs:
        proc.kill()
        proc.wait()


def test_stop_never_signals_a_process_that_is_not_this_runs_evaluation(tmp_path, started, capsys):
    run = _run_folder(tmp_path)
    other_run = _run_folder(tmp_path / "other")
    innocent = subprocess.Popen([sys.executable, "-c", SLEEPER])
    other_eval = subprocess.Popen([sys.executable, "-c", SLEEPER, "eval", str(other_run), "--job"])
    started += [innocent, other_eval]
    for proc in (innocent, other_eval):  # a record with the right start time: only the kind is wrong
        (run / run_folder.EVAL_PID.rel).write_text(record_text(proc.pid))
        assert main(["eval", str(run), "--stop"]) == 0
        assert f"no evaluation of {run} is running" in capsys.readouterr().out
        assert proc.poll() is None, "eval --stop signalled a process that is no evaluation of this run"


def test_stop_still_stops_this_runs_evaluation(tmp_path, started):
    run = _run_folder(tmp_path)
    pid, _ = job_process.start_job(run, [sys.executable, "-c", SLEEPER, "eval", str(run), "--job"])
    assert job_process.eval_pid(run) == pid
    assert job_process.stop_job_now(run, grace_s=5.0)
    assert job_process.eval_pid(run) is None


def test_two_starts_at_once_give_one_evaluation(tmp_path):
    run = _run_folder(tmp_path)
    argv = [sys.executable, "-c", SLEEPER, "eval", str(run), "--job"]
    gate = threading.Barrier(2)
    results: list[object] = []

    def start() -> None:
        gate.wait()
        try:
            results.append(job_process.start_job(run, argv))
        except UsageError as exc:
            results.append(exc)

    threads = [threading.Thread(target=start) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    try:
        started = [r for r in results if isinstance(r, tuple)]
        refused = [r for r in results if isinstance(r, UsageError)]
        assert len(started) == 1 and len(refused) == 1, results
        assert "already runs" in refused[0].message
    finally:
        for proc in job_process._started:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("damage", ["truncated", "empty"])
def test_a_damaged_lora_is_refused_before_any_render(model_tree, capsys, damage):
    from tests.eval_runs import final_checkpoint, finished_run

    run = finished_run(model_tree(), capsys)
    lora = final_checkpoint(run)
    data = lora.read_bytes()
    lora.write_bytes(data[: len(data) - 1] if damage == "truncated" else b"")
    capsys.readouterr()
    code = main(["eval", str(run), "--production", "no", "--no-base", "--yes"])
    err = capsys.readouterr().err
    assert code == 2 and str(lora) in err, err
    assert not (run / "outputs" / "eval").exists()  # nothing rendered
