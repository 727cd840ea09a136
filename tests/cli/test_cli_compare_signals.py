"""A signal to `ltx-wizard compare RUN --yes` while one of its programs runs (the simulated
trainer environment's held-out loss, held up by its wait knob) leaves nothing of it alive once
the wizard is gone."""

from __future__ import annotations

import signal

import pytest

from tests.cli.test_cli_compare import _box_env, built  # noqa: F401 (fixtures)
from tests.reliability.children import Wizard, signals, wizard_env

PROGRAM = "ltx_wizard.demo.sim.compare_programs"


@pytest.mark.parametrize("sig", signals())
def test_a_signal_during_compare_leaves_no_child(built, tmp_path, sig):  # noqa: F811
    env = wizard_env(LTX_WIZARD_SIM_COMPARE_WAIT="600")
    with Wizard(["compare", str(built), "--yes"], env=env, cwd=tmp_path) as wizard:
        wizard.child_up(PROGRAM)  # the health check, waiting before it writes its record
        code = wizard.assert_leaves_nothing(sig)
        said = wizard.output
    assert code == 128 + sig
    if sig != signal.SIGINT:  # Ctrl-C is "interrupted", as Python says it
        assert f"compare stopped by {signal.Signals(sig).name}: its program was stopped with it" in said, said


TRAINER = "ltx_wizard.demo.sim.trainer"


@pytest.mark.parametrize("sig", signals())
def test_a_signal_during_the_tournaments_renders_leaves_no_child(built, tmp_path, sig):  # noqa: F811
    """The renders run after the programs, the simulated trainer slowed down: the signal stops
    the validate-only run (core/proc's one handler) and compare ends as it does for its programs."""
    from tests.reliability.children import wait_logged

    env = wizard_env(LTX_WIZARD_SIM_SPEED="0.05")
    (built / "logs" / "compare-renders.log").unlink(missing_ok=True)  # an earlier test's lines
    with Wizard(["compare", str(built), "--yes"], env=env, cwd=tmp_path) as wizard:
        wait_logged(built / "logs", "compare-renders.log", "=== compare: renders of base")
        wizard.child_up(TRAINER)
        code = wizard.assert_leaves_nothing(sig)
        said = wizard.output
    assert code == 128 + sig
    if sig != signal.SIGINT:
        assert f"compare stopped by {signal.Signals(sig).name}: its program was stopped with it" in said, said
