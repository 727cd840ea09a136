"""Autotune screen, side by side: a guess run ahead says so, and once dropped it is not a failure."""

from __future__ import annotations

from ltx_wizard.core.autotune.sweep.trial_steps import dropped_label
from ltx_wizard.core.autotune.events import TrialPhase, TrialStarted
from tests.tui.helpers import ScriptedEngine, make_app, settle, to_summary, wait_until


class GuessingEngine(ScriptedEngine):
    """The scripted trials, then a guess of trial 4 run ahead of trial 3 and dropped at the end."""

    async def run(self):
        summary = await super().run()
        change = "batch_size 1 -> 2"
        self.on_event(TrialStarted(index=4, change=change, total_steps=40, config_path="c", ahead_of=3))
        self.on_event(TrialPhase(index=4, phase="ended", label="ended"))
        self.on_event(TrialPhase(index=4, phase="dropped", label=dropped_label(None, "trial-4.guess")))
        return summary


async def test_a_dropped_guess_reads_dropped_not_failed(demo_root, scripted):
    app = make_app(demo_root, engine_factory=GuessingEngine, at="summary")
    async with app.run_test(size=(120, 40)) as pilot:
        await to_summary(pilot)
        await pilot.press("a")
        await wait_until(pilot, lambda: not app.state.autotune_running)
        await settle(pilot)
        table = app.screen.query_one("#trials")
        rows = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
        assert [r[0] for r in rows] == ["1", "2", "3", "4"]
        assert rows[2][2] == "ok"  # the real trials keep their own rows
        assert rows[3][1:6] == ["batch_size 1 -> 2", "dropped", "—", "—", ""]
        assert rows[3][6].startswith("run ahead; no trial asked for it")
