"""The command palette's rules (core/base/palette_commands.py): each command offered only where
the screen's own key would act, places only for the phases that have run."""

from __future__ import annotations

from ltx_wizard.core.base.palette_commands import PaletteFacts, palette_commands


def ids(facts: PaletteFacts) -> list[str]:
    return [c.id for c in palette_commands(facts)]


def test_nothing_applies_on_the_first_screen():
    assert ids(PaletteFacts(current="probe")) == []


def test_nothing_over_a_dialog_which_waits_for_its_answer():
    assert ids(PaletteFacts(current=None, below=("probe", "plan"), run_files=("plan.md",))) == []


def test_places_are_the_phases_under_the_screen_on_top_nearest_first():
    facts = PaletteFacts(current="autotune", below=("probe", "paths", "plan"))
    assert ids(facts) == ["goto:plan", "goto:paths", "goto:probe"]
    titles = [c.title for c in palette_commands(facts)]
    assert titles == ["Go to 3 Plan", "Go to 2 Data: Paths", "Go to 1 Box: GPUs"]
    # one Preprocess screen over another, or an unknown id: one place each, none invented
    assert ids(PaletteFacts(current="done", below=("plan", "nope", "plan"))) == ["goto:plan"]


def test_run_files_open_only_when_there():
    assert ids(PaletteFacts(current="done", run_files=("plan.md", "config.yaml"))) == [
        "open:plan.md",
        "open:config.yaml",
    ]


def test_the_monitor_offers_stop_only_live_and_resume_only_resumable():
    live = PaletteFacts(current="monitor", training=True, live=True)
    assert ids(live) == ["stop", "evaluate"]
    finished = PaletteFacts(current="monitor", training=True, resumable=True)
    assert ids(finished) == ["resume", "evaluate"]
    # the same facts on another screen: that screen has no such keys
    assert ids(PaletteFacts(current="done", training=True, live=True, resumable=True)) == []


def test_monitor_from_the_existing_run_only_with_a_training():
    assert ids(PaletteFacts(current="existing_run", training=True)) == ["monitor"]
    assert ids(PaletteFacts(current="existing_run")) == []


def test_results_stop_and_copy_follow_its_state():
    assert ids(PaletteFacts(current="results")) == []
    assert ids(PaletteFacts(current="results", eval_running=True, render_selected=True)) == [
        "stop",
        "copy_scp",
    ]


def test_compare_wherever_the_screen_offers_it():
    assert ids(PaletteFacts(current="monitor", compare_offered=True)) == ["compare"]
