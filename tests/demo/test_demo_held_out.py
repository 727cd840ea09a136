"""The demo's clip dataset keeps clips apart, as prepare would (issue 44): holdout.jsonl beside its
dataset.json, so a `--demo` run planned on it preprocesses them into RUN/holdout/.precomputed and its
comparison has a held-out loss. Before, the demo's dataset had no holdout.jsonl, and compare none."""

from __future__ import annotations

import json

from ltx_wizard.core.dataset.rows import read_dataset_file
from ltx_wizard.core.preprocess.held_out import held_out_root, plan_held_out
from ltx_wizard.demo.builder import HELD_OUT, build_demo


def test_the_demo_dataset_has_held_out_clips_the_plan_finds(tmp_path):
    demo = build_demo(tmp_path / "demo")
    rows = json.loads(demo.dataset_file.read_text("utf-8"))
    held_file = demo.dataset_file.parent / "holdout.jsonl"
    held = [json.loads(line) for line in held_file.read_text("utf-8").splitlines()]
    assert len(held) == HELD_OUT == 2
    assert not {r["video"] for r in held} & {r["video"] for r in rows}  # never trained on
    assert all((demo.dataset_file.parent / r["video"]).is_file() for r in held)  # real clips
    assert len(rows) == 4  # the training clips as before (one of them silent)
    run = tmp_path / "run"
    planned = plan_held_out(run, demo.dataset_file, demo.data_root)
    assert planned.file == held_file and planned.root == held_out_root(run)
    parsed = read_dataset_file(held_file)
    assert planned.samples == tuple(parsed.output_rel(r) for r in parsed.rows) and len(planned.samples) == 2
