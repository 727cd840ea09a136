"""The evaluation's decisions in the core (core/evaluation/request.py, production_choice.py):
the stand-in a run is evaluated on, and one preview that `ltx-wizard eval` and the Results screen
both show."""

from __future__ import annotations

import shutil

import pytest

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.stand_in import NO_STAND_IN
from ltx_wizard.core.evaluation.production import PIPELINES_REL
from ltx_wizard.core.evaluation.request import EvalRequest, plan_evaluation, preview, stand_in_for_run
from ltx_wizard.core.io.run_meta import read_run_meta
from ltx_wizard.demo.sim.stand_in import choose_stand_ins
from tests.eval_runs import finished_run


def test_a_run_planned_on_simulated_gpus_is_evaluated_on_the_preset_its_launch_recorded(model_tree, capsys):
    run = finished_run(model_tree(sim="rtx5090"), capsys, holdout=0)
    assert stand_in_for_run(run, choose_stand_ins(None)).preset == "rtx5090"  # no --simulate given
    assert stand_in_for_run(run, choose_stand_ins("a6000")).preset == "a6000"  # the one chosen wins
    assert stand_in_for_run(run, NO_STAND_IN) is None  # nothing to stand in with


def test_a_run_planned_on_real_gpus_gets_no_stand_in_unless_one_was_chosen(model_tree, capsys):
    run = finished_run(model_tree(), capsys, holdout=0)
    text = (run / "run.json").read_text(encoding="utf-8")
    assert '"simulated": true' in text
    (run / "run.json").write_text(text.replace('"simulated": true', '"simulated": false'), encoding="utf-8")
    assert stand_in_for_run(run, choose_stand_ins(None)) is None
    assert stand_in_for_run(run, choose_stand_ins("h100")).preset == "h100"


def test_eval_and_the_results_screen_are_shown_the_same_decisions(model_tree, capsys):
    run = finished_run(model_tree(), capsys)
    stand_ins = choose_stand_ins(None)
    seen = preview(run, stand_ins)  # what the Results screen shows
    planned = plan_evaluation(run, stand_ins, EvalRequest())  # what `eval` prints and writes
    assert planned.preview.production == seen.production
    assert planned.preview.setup.prompts == seen.setup.prompts
    assert all(line in planned.lines for line in seen.production.lines)
    assert planned.job.production == seen.production.production


def test_production_no_and_yes_are_the_users_word(model_tree, capsys):
    run = finished_run(model_tree(), capsys, holdout=0)
    stand_ins = choose_stand_ins(None)
    off = preview(run, stand_ins, EvalRequest(production="no")).production
    assert off.production is None
    assert off.lines == ["Production inference (ltx-pipelines): not asked for"]
    shutil.rmtree(read_run_meta(run).trainer_root / PIPELINES_REL)  # a checkout without ltx-pipelines
    assert preview(run, stand_ins).production.production is None  # auto: said, not run
    with pytest.raises(UsageError, match="--production yes"):
        preview(run, stand_ins, EvalRequest(production="yes"))
