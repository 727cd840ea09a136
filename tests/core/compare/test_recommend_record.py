"""core/compare/compare_record.py: outputs/compare/compare.json written and read back through the
codec, `compare --json`'s keys exactly as issue 44 Deliver 6 names them, the refusals of a record that
contradicts itself, and the one line for run-summary.md and `status`."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.compare.compare_record import (
    compare_json,
    compare_line,
    compare_path,
    compare_record,
    read_compare,
    results_of,
    write_compare,
)
from ltx_wizard.core.compare.recommend import CheckpointResult, recommend

NAN = "video attention: 1,024 NaN and 0 Inf values in 4 of 4 modules"


def _results() -> list[CheckpointResult]:
    path = "/r/outputs/checkpoints/lora_weights_step_{:05d}.safetensors"
    return [
        CheckpointResult(1000, path.format(1000), 0.1201, 0.1150, 0.0812, True, ()),
        CheckpointResult(500, path.format(500), 0.1132, 0.1021, 0.1425, True, ()),
        CheckpointResult(1500, path.format(1500), math.nan, None, None, False, (NAN,)),
    ]


def _record(note: str | None = None):
    results = _results()
    return compare_record(results, note, recommend(results, note))


def test_the_record_is_written_and_read_back_the_same_in_step_order(tmp_path: Path):
    record = _record()
    assert write_compare(tmp_path, record) == compare_path(tmp_path)
    assert compare_path(tmp_path) == tmp_path / "outputs" / "compare" / "compare.json"
    assert read_compare(tmp_path) == record
    assert [c.step for c in record.checkpoints] == [500, 1000, 1500]
    # a NaN is written as null (JSON has none); the health problem says why
    assert record.checkpoints[2].held_out_loss is None and record.checkpoints[2].health.problems == (NAN,)
    assert recommend(results_of(record), None) == recommend(_results(), None)
    assert read_compare(tmp_path / "none") is None


def test_compare_json_has_exactly_the_issues_keys():
    doc = json.loads(json.dumps(compare_json(_record())))
    assert list(doc) == ["checkpoints", "recommended", "held_out_note", "cost"]
    assert doc["cost"] is None  # a record written before the measured cost
    for entry in doc["checkpoints"]:
        assert list(entry) == ["step", "path", "held_out_loss", "train_loss", "effect", "health"]
        assert list(entry["health"]) == ["ok", "problems"]
    assert list(doc["recommended"]) == ["step", "reason"]
    first = doc["checkpoints"][0]
    assert first == {
        "step": 500,
        "path": "/r/outputs/checkpoints/lora_weights_step_00500.safetensors",
        "held_out_loss": 0.1132,
        "train_loss": 0.1021,
        "effect": 0.1425,
        "health": {"ok": True, "problems": []},
    }
    assert doc["checkpoints"][2]["health"] == {"ok": False, "problems": [NAN]}
    assert doc["recommended"]["step"] == 500 and doc["recommended"]["reason"].startswith("step 500: lowest")
    assert doc["held_out_note"] is None


def test_without_held_out_clips_the_losses_are_null_and_the_note_is_given():
    path = "/r/outputs/checkpoints/lora_weights_step_00500.safetensors"
    results = [CheckpointResult(500, path, None, None, None, True, ())]
    note = "no clips were held out"
    doc = compare_json(compare_record(results, note, recommend(results, note)))
    assert doc["checkpoints"][0]["held_out_loss"] is None and doc["held_out_note"] == note
    assert doc["recommended"]["reason"].endswith(f"no held-out loss: {note}")


def _write_changed(run: Path, change) -> None:
    write_compare(run, _record())
    doc = json.loads(compare_path(run).read_text())
    change(doc)
    compare_path(run).write_text(json.dumps(doc), encoding="utf-8")


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda d: d["checkpoints"][1].update(step=500), "a step is listed twice (500, 500, 1500)"),
        (
            lambda d: d["recommended"].update(step=1500),
            "the recommended step 1500 is not a healthy checkpoint",
        ),
        (lambda d: d["recommended"].update(step=700), "the recommended step 700 is not a healthy checkpoint"),
        (lambda d: d["checkpoints"][2]["health"].update(ok=True), "health is ok with problems"),
        (
            lambda d: d["checkpoints"][0]["health"].update(nice=1),
            "unknown field `$.checkpoints[0].health.nice`",
        ),
        (lambda d: d["checkpoints"][0].update(effect="14 %"), "Expected `float | null`, got `str`"),
        (lambda d: d.update(version=2), "is of version 2, written by a newer ltx-wizard"),
    ],
)
def test_a_record_that_contradicts_itself_is_refused_naming_the_file(tmp_path: Path, change, said):
    _write_changed(tmp_path, change)
    with pytest.raises(UsageError) as caught:
        read_compare(tmp_path)
    message = caught.value.message
    assert message.startswith(f"compare record {compare_path(tmp_path)} ") and said in message
    assert message.endswith("run `ltx-wizard compare RUN_DIR` again")


def test_the_one_line_names_the_count_the_pick_and_its_reason():
    record = _record()
    assert compare_line(record) == f"3 checkpoints compared, recommended {record.recommended.reason}"
    assert compare_line(record).startswith(
        "3 checkpoints compared, recommended step 500: lowest held-out loss"
    )
    path = "/r/outputs/checkpoints/lora_weights_step_00500.safetensors"
    bad = [CheckpointResult(500, path, None, None, None, False, (NAN,))]
    line = compare_line(compare_record(bad, None, recommend(bad, None)))
    assert line == (
        "1 checkpoint compared: no checkpoint can be recommended: the one checkpoint is unhealthy "
        f"(step 500: {NAN})"
    )
