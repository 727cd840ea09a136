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
    rows, _ = _render_logged(built, plan, plan.program, contenders, renders)
    assert [r.contender.name for r in rows] == ["base", "step-999", "step-1"]
    for row in (rows[0], rows[2]):
        assert all(c.missing is None and c.render is not None and c.render.is_file() for c in row.cells)
    why = f"FileNotFoundError: {gone} ({log_rel} has its output)"
    assert [c.missing for c in rows[1].cells] == [why] * len(plan.prompts)
    assert not (renders / "step-999").exists() or not any((renders / "step-999").iterdir())
    assert plan.log.read_text("utf-8").count("=== compare: renders of ") == 1  # one process


def test_out_of_memory_renders_every_row_again_once_at_half_the_size(built, tmp_path):  # noqa: F811
    """The program's first try runs out of memory with no row rendered: compare-config.yaml is
    written again at half the width and height and the one process runs once more."""
    import sys

    from ltx_wizard.core.evaluation.job import Command

    stand_in = choose_stand_ins("a6000").chosen
    plan = plan_tournament(built, read_config(built / "config.yaml"), 1, stand_in)
    marker = tmp_path / "tried"
    wrapper = tmp_path / "oom_once.py"
    wrapper.write_text(
        "import os, sys\n"
        f"marker = {str(marker)!r}\n"
        "if not os.path.exists(marker):\n"
        "    open(marker, 'w').close()\n"
        "    print('torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB', flush=True)\n"
        "    raise SystemExit(1)\n"
        "from ltx_wizard.demo.sim.compare_programs import main\n"
        "raise SystemExit(main(['tournament_render', *sys.argv[1:]]))\n",
        encoding="utf-8",
    )
    program = Command([sys.executable, str(wrapper)], plan.program.cwd, plan.program.env)
    contenders = [Contender("base", None, None), Contender("step-1", 1, checkpoints(built)[0])]
    renders = built / "outputs" / "compare" / "renders-oom"
    rows, notes = _render_logged(built, plan, program, contenders, renders)
    width, height, frames = plan.settings.dims
    smaller = f"{max(32, width // 2 // 32 * 32)}x{max(32, height // 2 // 32 * 32)}x{frames}"
    assert any(
        n.startswith(f"out of memory at {width}x{height}x{frames}: retrying once at {smaller}") for n in notes
    )
    assert all(c.missing is None and c.render is not None for row in rows for c in row.cells)
    text = (built / "compare-config.yaml").read_text("utf-8").replace("\n", " ")
    assert f"{smaller.split('x')[0]}, {smaller.split('x')[1]}, {frames}]" in text


def test_the_retry_after_out_of_memory_computes_no_held_out_loss_record_twice(built, tmp_path):  # noqa: F811
    """The loss runs first in the tournament's process; its first try writes every loss record, then
    runs out of memory on the first render: the retry at half the size is asked for no loss at all."""
    import json
    import sys

    from ltx_wizard.core.compare.compare_plan import Kept, plan_compare
    from ltx_wizard.core.compare.compare_run import clear_records, missing_loss
    from ltx_wizard.core.compare.loss_record import loss_file
    from ltx_wizard.core.evaluation.job import Command

    stand_in = choose_stand_ins("a6000").chosen
    config = read_config(built / "config.yaml")
    plan = plan_tournament(built, config, 1, stand_in, loss=True)
    first = checkpoints(built)[0]
    step = int(first.stem.rsplit("_", 1)[1])
    kept = [Kept(step, first)]
    compare = plan_compare(built, kept, "all", stand_in=stand_in, uv=None, config=config, render_log=plan.log)
    assert compare.loss_in_renders and not [p for p in compare.programs if p.name == "held-out loss"]
    clear_records(compare)
    marker, argvs = tmp_path / "tried", tmp_path / "argvs.jsonl"
    wrapper = tmp_path / "oom_after_the_loss.py"
    wrapper.write_text(
        "import json, os, sys\n"
        "import ltx_wizard.demo.tiny_video as tiny\n"
        "from ltx_wizard.demo.sim.compare_programs import main\n"
        f"with open({str(argvs)!r}, 'a') as f:\n"
        "    f.write(json.dumps(sys.argv[1:]) + '\\n')\n"
        f"if not os.path.exists({str(marker)!r}):\n"
        f"    open({str(marker)!r}, 'w').close()\n"
        "    def oom(*args, **kwargs):\n"
        "        print('torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB', flush=True)\n"
        "        raise SystemExit(1)\n"
        "    tiny.render_sample = oom\n"
        "raise SystemExit(main(['tournament_render', *sys.argv[1:]]))\n",
        encoding="utf-8",
    )
    program = Command([sys.executable, str(wrapper)], plan.program.cwd, plan.program.env)
    contenders = [Contender("base", None, None), Contender(f"step-{step}", step, first)]
    renders = built / "outputs" / "compare" / "renders-oom-loss"
    # asked before each try: the retry computes no record twice
    rows, _ = _render_logged(
        built, plan, program, contenders, renders, loss_args=lambda: compare.loss_args(missing_loss(compare))
    )
    tried = [json.loads(line) for line in argvs.read_text("utf-8").splitlines()]
    assert len(tried) == 2  # the first try and the retry at half the size
    assert tried[0][tried[0].index("--loss-rows") + 1] == f"base,step-{step}"
    assert "--loss-config" not in tried[1]  # every record was written by the first
    text = plan.log.read_text("utf-8")
    assert text.count("heldout_loss: base: ") == 1 and text.count(f"heldout_loss: {first.stem}: ") == 1
    assert missing_loss(compare) == [] and loss_file(built, first).is_file()
    assert all(c.missing is None and c.render is not None for row in rows for c in row.cells)


def _render_logged(run, plan, program, contenders, renders, **options):
    """render_tournament into the plan's log, as compare runs it: (its rows, the notes it wrote)."""
    notes: list[str] = []
    plan.log.unlink(missing_ok=True)
    with plan.log.open("a", encoding="utf-8") as log:

        def note(text: str) -> None:  # as compare's own note (commands/compare.py _render)
            notes.append(text)
            log.write(f"=== compare: {text}\n")
            log.flush()

        rows = render_tournament(
            run,
            program,
            contenders,
            plan.prompts,
            plan.settings,
            renders,
            log,
            log_rel=plan.log.relative_to(run).as_posix(),
            stop=threading.Event(),
            note=note,
            **options,
        )
    return rows, notes
