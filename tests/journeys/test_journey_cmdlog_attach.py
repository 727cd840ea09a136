"""Issue 45 item 4 over real terminals: two wizards on one run, each `ltx-wizard monitor RUN` in its
own pseudo-terminal at 80x24 (as two SSH sessions). The first holds the run (its lock names its
pid); the second, started once the first holds it, is read-only: it says who holds the run and
offers no Stop, Resume or Apply fix, and its keys for them do nothing. Once the first leaves, a
new one holds the run again."""

from __future__ import annotations

from ltx_wizard.core.io.workspace import lock_holder
from tests.monitor_runs import make_run, sample_log
from tests.reliability.children import Wizard, wait_for, wizard_env


def _finished_resumable_run(tmp_path):
    run = make_run(tmp_path, sample_log("ok_single_gpu_cols250"), checkpoints=((50, True),))
    config = run / "config.yaml"
    config.write_text(config.read_text().replace("steps: 50", "steps: 80"))  # Resume is offered
    return run


def test_the_second_wizard_on_a_held_run_is_read_only(tmp_path):
    run = _finished_resumable_run(tmp_path)
    env = wizard_env(TMPDIR=str(tmp_path))
    with Wizard(["monitor", str(run)], env=env, cwd=tmp_path, tty=True) as first:
        first.wait_shown("Resume (r)")  # the Monitor, with its actions
        held = wait_for(lambda: lock_holder(run), 60, "the first wizard holding the run")
        assert held.pid == first.proc.pid
        with Wizard(["monitor", str(run)], env=env, cwd=tmp_path, tty=True) as second:
            # in two pieces: a line may wrap between them at 80 columns
            second.wait_shown("Read-only: another ltx-wizard holds this run")
            second.wait_shown(f"(pid {first.proc.pid}, started")
            second.wait_shown("Training: finished")
            assert "Resume (r)" not in second.shown and "Apply fix (f)" not in second.shown
            second.wait_shown("Copy path (y)")  # a button shown once the status names a checkpoint
            before = len(second.shown)
            second.press("r")
            second.key_to("y", "Sent")  # keys still work (the copy toast); r opened nothing
            assert "Resume training" not in second.shown[before:]
            second.press("q")
            assert second.wait_gone() == 0
        assert lock_holder(run) is not None and lock_holder(run).pid == first.proc.pid  # untouched
        first.key_to("r", "Resume training")  # the holder is offered it
        first.press("\x11")  # ctrl+q, from over the dialog
        assert first.wait_gone() == 0
    assert lock_holder(run) is None and not (run / ".ltx-wizard.lock").exists()
