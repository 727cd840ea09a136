"""The tournament's one process (issue 44, Deliver 8) on the simulated run of test_cli_compare.py:
a row whose checkpoint cannot be loaded leaves its cells missing with the program's own reason,
and the rows before and after it still render, all in one child."""

from __future__ import annotations

import threading

from ltx_wizard.core.evaluation.tournament import Contender, plan_tournament, render_tournament
from ltx_wizard.core.monitor.run_config import read_config
from ltx_wizard.demo.sim.stand_in import choose_stand_ins
from tests.cli.test_cli_compare import _box_env, built, checkpoints  # noqa: F401 (fixtures)


def test_a_row_that_fails_leaves_its_cells_missing_with_the_reason_and_the_others_render(built):  # noqa: F811
    stand_in = choose_stand_ins("a6000").chosen
    plan = plan_tournament(built, read_config(built / "config.yaml"), 2, stand_in)
    kept = checkpoints(built)[0]
    gone = built / "gone" / "lora_weights_step_00999.safetensors"
    contenders = [
        Contender("base", None, None),
        Contender("step-999", 999, gone),
        Contender("step-1", 1, kept),
    ]
    renders = built / "outputs" / "compare" / "renders-rows"
    log_rel = plan.log.relative_to(built).as_posix()
    plan.log.unlink(missing_ok=True)
    with plan.log.open("a", encoding="utf-8") as log:

        def note(text: str) -> None:  # as compare's own note (commands/compare.py _render)
            log.write(f"=== compare: {text}\n")
            log.flush()

        rows = render_tournament(
            built,
            plan.program,
            contenders,
            plan.prompts,
            plan.settings,
            renders,
            log,
            log_rel=log_rel,
            stop=threading.Event(),
            note=note,
        )
    assert [r.contender.name for r in rows] == ["base", "step-999", "step-1"]
    for row in (rows[0], rows[2]):
        assert all(c.missing is None and c.render is not None and c.render.is_file() for c in row.cells)
    why = f"FileNotFoundError: {gone} ({log_rel} has its output)"
    assert [c.missing for c in rows[1].cells] == [why] * len(plan.prompts)
    assert not (renders / "step-999").exists() or not any((renders / "step-999").iterdir())
    assert plan.log.read_text("utf-8").count("=== compare: renders of ") == 1  # one process
