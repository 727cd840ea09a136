"""Side by side, the events say which GPU each trial runs on, so the screen's live rows and its
VRAM line name the right GPU (not GPU 0 for every trial's own single-GPU reading)."""

from __future__ import annotations

import asyncio

from ltx_wizard.core.autotune.outputs import presenter
from ltx_wizard.core.autotune.trials import trial_runner as runner
from ltx_wizard.core.autotune.events import TrialPhase, TrialStarted, VramUpdate
from tests.core.autotune.test_autotune_engine import plan_run
from tests.core.autotune.test_trial_once import BOUND_S, _engine


async def test_side_by_side_trials_each_name_their_own_gpu_and_never_share_one(tmp_path, monkeypatch):
    # readings every 20 ms: a simulated trial may end within the usual half second
    monkeypatch.setattr(runner, "VRAM_UPDATE_S", 0.02)
    run_dir = plan_run(tmp_path, "2xa6000", samples=4)
    events: list = []
    await asyncio.wait_for(_engine(run_dir, "2xa6000", events.append).run(), BOUND_S)
    busy: dict[int, int] = {}  # GPU -> the trial whose process runs there
    on: dict[int, int] = {}
    for event in events:
        if isinstance(event, TrialStarted):
            assert len(event.gpus) == 1 and event.gpus[0] in (0, 1), event
            gpu = event.gpus[0]
            assert gpu not in busy, f"trial {event.index} started on GPU {gpu}, busy with {busy}"
            busy[gpu], on[event.index] = event.index, gpu
        elif (
            isinstance(event, TrialPhase)
            and not event.confirmation
            and event.phase in ("ended", "dropped")
            and busy.get(on.get(event.index, -1)) == event.index
        ):
            del busy[on[event.index]]
    assert set(on.values()) == {0, 1}  # both GPUs ran trials
    readings = [e for e in events if isinstance(e, VramUpdate)]
    assert readings and all(len(e.gpus) == len(e.used_mib) for e in readings)


def test_the_vram_line_keeps_each_gpus_latest_reading():
    readings: dict = {}
    line = presenter.vram_readings(readings, VramUpdate(used_mib=[20480], total_mib=[49140], gpus=(1,)))
    assert line == "VRAM GPU1 20.0/48 GiB"
    line = presenter.vram_readings(readings, VramUpdate(used_mib=[10240], total_mib=[49140], gpus=(0,)))
    assert line == "VRAM GPU0 10.0/48 GiB  GPU1 20.0/48 GiB"
    line = presenter.vram_readings(readings, VramUpdate(used_mib=[None, 30720], total_mib=[49140, 49140]))
    assert line == "VRAM GPU0 ?/48 GiB  GPU1 30.0/48 GiB"  # no GPUs named: 0, 1, ...


def test_many_gpus_read_as_the_fullest_one_on_one_line():
    readings: dict = {}
    line = presenter.vram_readings(
        readings, VramUpdate(used_mib=[40960 + 1024 * g for g in range(8)], total_mib=[81920] * 8)
    )
    assert line == "VRAM 8 GPUs, fullest GPU7 47.0/80 GiB" and len(line) < 80


def test_the_table_lists_trials_by_number_and_the_confirmations_after_them():
    cells = ["1", "6", "2", "✔", "3", "✔"]
    assert sorted(cells, key=presenter.table_order) == ["1", "2", "3", "6", "✔", "✔"]
