"""The monitor reads config.yaml through the typed view (core/monitor/run_config.py over
core/io/trainer_config.py): a value of the wrong type is unknown, never a crash, and resume names
it; a value the trainer's lax reading accepts is read as the trainer reads it."""

from __future__ import annotations

from pathlib import Path

import pytest

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.monitor.diagnosis import advice_and_changes
from ltx_wizard.core.monitor.run_config import config_view, output_dir

HOSTILE = {
    "lora": {"rank": "abc", "alpha": 16},
    "optimization": {"steps": [1, 2], "batch_size": 2},
    "acceleration": "everything",
    "output_dir": {"a": 1},
}


def test_a_wrong_type_reads_as_unknown_and_the_rest_is_read():
    view = config_view(HOSTILE)
    assert view.keys.lora.rank is None and view.keys.lora.alpha == 16
    assert view.keys.optimization.steps is None and view.keys.optimization.batch_size == 2
    assert view.keys.acceleration.quantization is None and view.keys.output_dir is None
    assert set(view.refused) == {"lora.rank", "optimization.steps", "acceleration", "output_dir"}
    with pytest.raises(UsageError, match=r"optimization\.steps is \[1, 2\]"):
        view.require("checkpoints.interval", "optimization.steps")
    with pytest.raises(UsageError, match="acceleration is 'everything'"):
        view.require("acceleration.quantization")


def test_the_output_folder_of_a_hostile_value_is_the_trainers_default(tmp_path):
    # string-key reads made a folder named "{'a': 1}" of it
    assert output_dir(tmp_path, HOSTILE) == tmp_path / "outputs"


def test_advice_on_a_hostile_config_is_given_without_a_crash():
    advice, change = advice_and_changes("oom", HOSTILE)
    assert advice and change == {"optimization.enable_gradient_checkpointing": True}


def test_a_learning_rate_written_as_a_string_is_read_as_the_trainer_reads_it():
    # pydantic's lax float (the trainer's OptimizationConfig) takes "1e-4"; a string-key read did not
    _, change = advice_and_changes("nan", {"optimization": {"learning_rate": "1e-4"}})
    assert change == {"optimization.learning_rate": 2e-05}


def test_a_config_that_is_all_wrong_reads_as_empty():
    view = config_view({"model": [], "seed": "x", 3: None})
    assert view.keys.model.training_mode is None and view.keys.seed is None
    assert output_dir(Path("/r"), {"output_dir": "/abs/out"}) == Path("/abs/out")
