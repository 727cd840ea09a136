"""Several nodes asked for (`ltx-wizard --nodes N`): the plan screen says so and writes slurm.sbatch."""

from __future__ import annotations

import dataclasses

from ltx_wizard.cli import main
from ltx_wizard.tui.screens.done import DoneScreen
from tests.tui.helpers import RUN_NAME, make_app, settle, to_summary


def _text(app, selector: str) -> str:
    return str(app.screen.query_one(selector).render())


async def test_two_nodes_show_totals_and_write_the_slurm_script(tmp_path):
    demo = tmp_path / "demo"
    app = make_app(demo, simulate="2xh100", nodes=2, at="summary")
    async with app.run_test(size=(120, 40)) as pilot:
        await to_summary(pilot)
        head = _text(app, "#summary-head")
        assert "Nodes: 2 x 2 GPUs = 4 GPUs · effective batch 4" in head
        assert "slurm.sbatch" in head and "untested on a real cluster" in head
        run = demo / "ltx-trainings" / RUN_NAME
        assert f"cd {run} && sbatch slurm.sbatch" in _text(app, "#launch")
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, DoneScreen)
        assert (run / "slurm.sbatch").is_file()
        assert "✓ slurm.sbatch" in _text(app, "#files")
        assert _text(app, "#launch-line") == f"bash {run}/launch.sh"
        # "Start training" runs launch.sh; on real GPUs the same approved plan's launch.sh
        # submits the job (here GPUs are simulated, so it runs the simulated trainer).
        real = dataclasses.replace(app.state.draft, stand_in=None).start
        assert (real.argv, real.cwd) == (["sbatch", str(run / "slurm.sbatch")], run)


async def test_one_node_screen_says_nothing_of_nodes(tmp_path):
    app = make_app(tmp_path / "demo", simulate="2xh100", at="summary")
    async with app.run_test(size=(120, 40)) as pilot:
        await to_summary(pilot)
        assert "Nodes:" not in _text(app, "#summary-head")
        assert "sbatch" not in _text(app, "#launch")


def test_a_bad_node_count_stops_before_the_screen_opens(capsys):
    assert main(["--nodes", "0"]) == 2
    assert capsys.readouterr().err.startswith("ltx-wizard: --nodes 0 is outside 1..1024")
