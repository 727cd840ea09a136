"""The LoRA health record (core/compare/health_record.py): the file trainer_side/lora_health.py
wrote (tests/core/io/old_run/outputs/compare/lora-health.json) read back through the codec, a
field damaged deep inside refused naming the file, and the command line built for the program."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.compare.health_record import SCRIPT, health_argv, health_path, read_health
from ltx_wizard.core.compare.health_verdict import Trained, verdict

WRITTEN = Path(__file__).parents[1] / "io" / "old_run" / "outputs" / "compare" / "lora-health.json"


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    health_path(tmp_path).parent.mkdir(parents=True)
    shutil.copy(WRITTEN, health_path(tmp_path))
    return tmp_path


def test_the_programs_record_reads_back_and_is_judged(run_dir):
    record = read_health(run_dir)
    assert record is not None and record.version == 1 and len(record.checkpoints) == 1
    facts = record.checkpoints[0]
    assert len(facts.modules) == 24 and facts.others == () and facts.dtypes == ("BF16",)
    assert verdict(facts, Trained()).ok


def test_no_record_reads_as_none(tmp_path):
    assert read_health(tmp_path) is None


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (
            lambda d: d["checkpoints"][0]["modules"][0].update(surprise=1),
            "unknown field `$.checkpoints[0].modules[0].surprise`",
        ),
        (lambda d: d["checkpoints"][0]["modules"][0].update(nan="0"), "Expected `int`, got `str`"),
        (
            lambda d: d["checkpoints"][0]["modules"][0].update(delta_norm="NaN"),
            "Expected `float | null`, got `str`",
        ),
    ],
)
def test_a_record_damaged_inside_is_refused_naming_the_file(run_dir, change, said):
    doc = json.loads(WRITTEN.read_text())
    change(doc)
    health_path(run_dir).write_text(json.dumps(doc))
    with pytest.raises(UsageError) as caught:
        read_health(run_dir)
    message = caught.value.message
    assert message.startswith(f"LoRA health record {health_path(run_dir)} is damaged") and said in message
    assert message.endswith("run the LoRA health check again")


def test_the_command_line_runs_the_program_as_a_file(tmp_path):
    argv = health_argv(
        "/trainer/.venv/bin/python", tmp_path, (Path("/c/a.safetensors"), Path("/c/b.safetensors"))
    )
    assert argv == [
        "/trainer/.venv/bin/python",
        str(SCRIPT),
        "--out",
        str(health_path(tmp_path)),
        "/c/a.safetensors",
        "/c/b.safetensors",
    ]
