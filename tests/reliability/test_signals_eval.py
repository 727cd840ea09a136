"""Issue 42: a signal to `ltx-wizard eval RUN --yes` (in the foreground: its own handlers stop
the renders) while its first render runs (the trainer's validation with the LoRA, the simulated
trainer slowed down) leaves nothing of it alive 5 s after the wizard is gone."""

from __future__ import annotations

import os
import re

import pytest

from tests.eval_runs import finished_run

from .children import (
    WIZARD_EXIT_S,
    Wizard,
    alive,
    kill_all,
    marked,
    next_start_reaps,
    read_proc,
    signals,
    wait_for,
    wait_logged,
    wizard_env,
)

TRAINER = "ltx_wizard.demo.sim.trainer"
SLOW = {"LTX_WIZARD_SIM_SPEED": "0.05"}


@pytest.fixture
def eval_argv(model_tree, capsys, monkeypatch):
    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "0")
    box = model_tree()
    run = finished_run(box, capsys)
    return run, ["eval", str(run), "--yes", "--simulate", "h100"]


def rendering(run, wizard: Wizard) -> None:
    wizard.child_up(TRAINER)
    wait_logged(run / "logs", "eval.log", "=== eval: trainer validation")


@pytest.mark.parametrize("sig", signals())
def test_a_signal_to_eval_stops_its_render(tmp_path, eval_argv, sig):
    run, argv = eval_argv
    with Wizard(argv, env=wizard_env(**SLOW), cwd=tmp_path) as wizard:
        rendering(run, wizard)
        wizard.assert_leaves_nothing(sig)


def test_eval_killed_leaves_nothing_after_the_next_start(tmp_path, eval_argv):
    run, argv = eval_argv
    env = wizard_env(**SLOW)
    with Wizard(argv, env=env, cwd=tmp_path) as wizard:
        rendering(run, wizard)
        next_start_reaps(wizard, argv, env=env, cwd=tmp_path)


@pytest.mark.parametrize("sig", signals())
def test_a_signal_to_the_background_evaluation_stops_its_render(tmp_path, eval_argv, sig):
    """The Results screen (and `eval --background`) starts the evaluation as a process of its own
    session, `ltx-wizard eval RUN --job`, that outlives the front end by design (an SSH drop must
    not end it); a signal to that process must still take its renders with it."""
    run, argv = eval_argv
    with Wizard([*argv, "--background"], env=wizard_env(**SLOW), cwd=tmp_path) as front:
        assert front.wait_gone() == 0, front.output
        said = re.search(r"in the background: pid (\d+)", front.output)
        assert said, front.output
        job = read_proc(int(said.group(1)))
        assert job is not None and "--job" in job.cmdline
        try:
            wait_for(lambda: [p for p in marked(front.mark) if TRAINER in p.cmdline], 60, "the job's render")
            wait_logged(run / "logs", "eval.log", "=== eval: trainer validation")
            front.recorded = [p for p in marked(front.mark) if p.pid != job.pid]  # its renders
            os.kill(job.pid, sig)
            wait_for(lambda: not alive(job), WIZARD_EXIT_S, "the evaluation's process ending")
            still = front.left_alive()
            assert not still, "; ".join(map(str, still))
        finally:
            kill_all([job])
