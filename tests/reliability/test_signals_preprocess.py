"""Issue 42: a signal to `ltx-wizard preprocess` while scripts/process_dataset.py (the simulated
one, slowed to a caption every 25 s) runs leaves nothing of it alive 5 s after the wizard is gone."""

from __future__ import annotations

import pytest

from ltx_wizard.demo.lookalike_media import make_clip_dataset

from .children import Wizard, next_start_reaps, signals, wait_logged, wizard_env

SCRIPT = "ltx_wizard.demo.sim.preprocess"
SLOW = {"LTX_WIZARD_SIM_SPEED": "0.02"}


@pytest.fixture
def planned(box, monkeypatch):
    """A run planned from a dataset file of three real tiny clips, on simulated GPUs."""
    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "0")
    dataset = make_clip_dataset(box.root / "clips", 3)
    result = box.cli(*box.plan_args(data_root=str(dataset)))
    assert result.code == 0, result.err
    return ["preprocess", str(box.run), "--one-sample", "--simulate", "h100"]


@pytest.mark.parametrize("sig", signals())
def test_a_signal_to_preprocess_stops_the_script(box, planned, sig):
    with Wizard(planned, env=wizard_env(**SLOW), cwd=box.root) as wizard:
        wizard.child_up(SCRIPT)
        wait_logged(box.run / "logs", "preprocess*.log", "Loaded")  # then 25 s for a caption
        wizard.assert_leaves_nothing(sig)


def test_preprocess_killed_leaves_nothing_after_the_next_start(box, planned):
    env = wizard_env(**SLOW)
    with Wizard(planned, env=env, cwd=box.root) as wizard:
        wizard.child_up(SCRIPT)
        wait_logged(box.run / "logs", "preprocess*.log", "Loaded")  # then 25 s for a caption
        next_start_reaps(wizard, planned, env=env, cwd=box.root)
