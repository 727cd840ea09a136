"""Issue 41, Deliver 3: a stop by the user exits 130 in every command that asks, as the README's
exit-code list says (3 is the minimum-VRAM gate's alone). prepare's spot check is in
test_cli_prepare.py; here the commands whose question is one line."""

from __future__ import annotations

import builtins
import sys

import pytest

from ltx_wizard.cli import main
from ltx_wizard.core.evaluation.job import read_state
from tests.eval_runs import finished_run


@pytest.fixture(autouse=True)
def _fast_sim(monkeypatch):
    monkeypatch.setenv("LTX_WIZARD_SIM_SPEED", "0")


def test_a_no_to_start_the_evaluation_exits_130_and_renders_nothing(model_tree, capsys, monkeypatch):
    run = finished_run(model_tree(), capsys, holdout=0)
    asked = []
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr(builtins, "input", lambda q: asked.append(q) or "n")
    assert main(["eval", str(run), "--simulate", "h100", "--production", "no"]) == 130
    assert asked == ["Start the evaluation? [y/N] "]
    assert "ltx-wizard: not started: nothing was rendered" in capsys.readouterr().err
    assert not (run / "outputs" / "eval").exists() or not any((run / "outputs" / "eval").rglob("*.mp4"))
    assert read_state(run) is None or read_state(run).state != "done"
