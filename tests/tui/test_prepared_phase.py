"""The Summary screen opened at a prepared phase (helpers.open_at) is the one the walk reaches.

Tests that are not about the walk from Probe through Paths open the app at the Summary screen
with the state built directly; this checks, per machine they use, that the user would see the same
plan either way: the request the Paths screen hands on, the probe, its assessment, the title, and
every line of the Summary screen.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import pytest

from tests.tui.helpers import make_app, to_summary

SHOWN = ("#summary-head", "#launch", "#warnings", "#host")


async def _seen(root: Path, at: str | None, **overrides) -> dict[str, object]:
    """What the Summary screen and the state say, with this demo folder's path taken out."""
    app = make_app(root, at=at, **overrides)
    async with app.run_test(size=(120, 40)) as pilot:
        await to_summary(pilot)
        assert type(app.screen).__name__ == "SummaryScreen"

        def plain(value: object) -> str:
            return str(value).replace(str(root), "<demo>")

        screen = {name: plain(app.screen.query_one(name).render()) for name in SHOWN}
        return {
            "request": {k: plain(v) for k, v in asdict(app.state.request).items()},
            "probe": app.state.probe,
            "assessment": plain(app.state.assessment),
            "title": (app.title, app.sub_title),
            "plan": plain(app.screen.draft.plan_text),
            "diff": plain(app.screen.draft.diff),
            "choices": app.screen.query_one("#choices").row_count,
            **screen,
        }


@pytest.mark.parametrize(
    "overrides",
    [{}, {"simulate": "2xa6000"}, {"simulate": "2xh100", "nodes": 2}],
    ids=["demo", "2xa6000", "2xh100-two-nodes"],
)
async def test_the_prepared_summary_is_the_walked_one(tmp_path, overrides):
    walked = await _seen(tmp_path / "walked" / "demo", None, **overrides)
    prepared = await _seen(tmp_path / "opened" / "demo", "summary", **overrides)
    assert prepared == walked
