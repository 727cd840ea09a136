"""The Done screen's "Rented GPUs (SkyPilot)": the files written and checked, their paths and the
three commands shown as sky/README.md has them; without SkyPilot, how to install it."""

from __future__ import annotations

import shlex

from ltx_wizard.core.cloud import sky_launch
from ltx_wizard.core.io import run_folder
from ltx_wizard.core.io.run_meta import read_run_meta
from ltx_wizard.tui.screens.done import DoneScreen
from tests.sky_kit import COMMIT, sky_python
from tests.tui.helpers import RUN_NAME, make_app, settle, to_summary, wait_until


async def _done(pilot) -> None:
    await to_summary(pilot)
    await pilot.press("s")
    await settle(pilot)
    assert isinstance(pilot.app.screen, DoneScreen)


def _as_git_clone(run) -> None:
    """The demo's look-alike checkout, with the HEAD a git clone has (the commit every node uses)."""
    checkout = read_run_meta(run).trainer_root
    (checkout / ".git").mkdir(exist_ok=True)
    (checkout / ".git" / "HEAD").write_text(COMMIT + "\n")


def _sky_text(app) -> str:
    return str(app.screen.query_one("#sky-status").render())


async def test_rented_gpus_writes_the_task_and_shows_the_three_commands(demo_root, monkeypatch):
    monkeypatch.setenv("LTX_WIZARD_SKY_PYTHON", sky_python())
    app = make_app(demo_root, at="summary")
    run = demo_root / "ltx-trainings" / RUN_NAME
    async with app.run_test(size=(120, 40)) as pilot:
        await _done(pilot)
        _as_git_clone(run)
        await pilot.press("r")
        await wait_until(
            pilot, lambda: "SkyPilot accepts" in _sky_text(app) or "!" in _sky_text(app), limit_s=240
        )
        assert "!" not in _sky_text(app), _sky_text(app)
        shown = _sky_text(app)
        readme = run_folder.SKY_README.path(run).read_text()
        commands = [line.strip() for line in readme.splitlines() if line.strip().startswith("sky jobs")]
        assert [line.strip() for line in shown.splitlines() if line.strip().startswith("sky ")] == commands[
            :3
        ]
        assert f"in {run / 'sky'}" in shown and "task.yaml" in shown and "smoke.yaml" in shown
        assert str(run_folder.SKY_README.path(run)) in shown
        assert shlex.split(commands[1])[-1] == str(run_folder.SKY_TASK.path(run))
        assert not app.screen.query_one("#sky").disabled


async def test_without_skypilot_it_says_how_to_install_it(demo_root, monkeypatch):
    monkeypatch.setattr(sky_launch, "find_sky_python", lambda: None)
    app = make_app(demo_root, at="summary")
    run = demo_root / "ltx-trainings" / RUN_NAME
    async with app.run_test(size=(80, 24)) as pilot:
        await _done(pilot)
        _as_git_clone(run)
        await pilot.click("#sky")
        await wait_until(pilot, lambda: "uv tool install skypilot" in _sky_text(app))
        assert "pipx install skypilot" in _sky_text(app)
        assert not run_folder.SKY_DIR.path(run).exists()
