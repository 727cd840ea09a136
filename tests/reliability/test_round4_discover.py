"""Round four (issue #36 item 4): `discover` is bounded by work, not by the clock.

On a busy box every header read takes longer; the search must still find every file (the same
answer at any load), stop at the same work bound on a tree that is not a models folder, and use
the clock only to name a folder that does not answer or a box too busy to finish, saying which.
The load is made here by slowing each header read in the walker (as a CPU hog beside it does,
without one); the benchmark (benchmarks/bench_paths.py) measures it with a real CPU hog.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from types import SimpleNamespace

from ltx_wizard.core.inputs import discovery
from ltx_wizard.demo.lookalike_models import make_checkpoint

from .conftest import refused


def _models(root: Path, n: int, *, flat: bool = False) -> Path:
    for i in range(n):
        make_checkpoint(
            root / f"ltx-2-{i:03d}.safetensors" if flat else root / f"m{i:03d}" / "ltx-2.safetensors"
        )
    return root


def _slow_headers(monkeypatch, seconds: float) -> None:
    """Every header read costs `seconds` more, as on a box at load 10 (in the walker thread)."""
    real = discovery.summary_for

    def slow(path, st):
        time.sleep(seconds)
        return real(path, st)

    monkeypatch.setattr(discovery, "summary_for", slow)


def test_a_slow_box_still_finds_every_checkpoint(box, monkeypatch):
    models = _models(box.root / "shelf", 25)
    _slow_headers(monkeypatch, 0.15)  # 3.75 s of header reads: past the old 3 s budget
    outside_unchanged = box.freeze()
    result = box.cli("discover", "--models-dir", str(models), "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert sum(c["kind"] == "checkpoint" for c in data["candidates"]) == 25
    assert data["timed_out"] is False and data["stopped"] is None and data["headers_read"] == 25
    outside_unchanged()


def test_a_tree_past_the_folder_bound_stops_there_the_same_way_every_time(box, monkeypatch):
    root = box.root / "big"
    for i in range(60):
        (root / f"d{i:02d}").mkdir(parents=True)
    make_checkpoint(root / "d00" / "ltx-2.safetensors")
    monkeypatch.setattr(discovery, "MAX_FOLDERS", 40)
    monkeypatch.setitem(discovery._BOUNDS, "folders", ("folders walked", 40))
    runs = [discovery.discover([root], env={}, system_roots=()) for _ in range(2)]
    _slow_headers(monkeypatch, 0.2)
    runs.append(discovery.discover([root], env={}, system_roots=()))  # and on a slow box
    assert {(r.stopped, r.dirs_scanned, len(r.unsearched), len(r.candidates)) for r in runs} == {
        ("folders", 40, 21, 1)
    }
    assert not runs[0].timed_out
    result = box.cli("discover", "--models-dir", str(root))
    refused(result, 1, "bound of 40 folders walked", "21 folder(s) not searched", "narrower --models-dir")


def _hang(monkeypatch, folder: Path) -> threading.Event:
    release = threading.Event()
    real = os.scandir

    def scandir(path):
        if Path(path) == folder:
            release.wait(30)
        return real(path)

    monkeypatch.setattr(discovery.os, "scandir", scandir)
    return release


def test_a_folder_that_does_not_answer_is_named_without_waiting_for_the_cap(box, monkeypatch):
    models = _models(box.root / "shelf", 2, flat=True)  # found before the walk reaches nfs/
    (box.root / "nfs").mkdir()
    monkeypatch.setattr(discovery, "STALL_S", 0.5)
    release = _hang(monkeypatch, box.root / "nfs")
    try:
        started = time.monotonic()
        result = box.cli("discover", "--models-dir", str(models), "--models-dir", str(box.root / "nfs"))
        took = time.monotonic() - started
    finally:
        release.set()
    refused(result, 1, "ran out of time", f"{box.root / 'nfs'} has not answered", "hung network mount")
    assert took < 10  # the stall, not the 120 s safety cap
    assert result.out.count("ltx-2-00") == 2  # what was found before is kept


def test_the_safety_cap_says_the_box_is_busy(box, monkeypatch):
    models = _models(box.root / "shelf", 6)
    _slow_headers(monkeypatch, 0.3)
    result = box.cli("discover", "--models-dir", str(models), "--time-budget", "0.5")
    refused(result, 1, "safety cap", "too busy", "retry when the box is less busy")


def test_a_data_root_listed_past_its_clock_says_busy_not_too_much(box, monkeypatch):
    """The data root's walk: bounded by entries (too much to be a data folder, exit 2) and, apart
    from that, guarded by a clock that names a box too busy (exit 1), never the wrong cause."""
    from ltx_wizard.core.dataset import data_root

    ticks = iter(range(0, 100_000, 200))  # each look at the walk's clock: 200 s later
    monkeypatch.setattr(data_root, "time", SimpleNamespace(monotonic=lambda: next(ticks)))
    result = box.cli(*box.plan_args())
    refused(result, 1, "took over 120 s", "too busy")
    assert "holds too much" not in result.err
