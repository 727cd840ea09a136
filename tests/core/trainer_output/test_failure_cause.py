"""A failed trial's reason: the cause in the trainer's own words, picked from the parser's records."""

from __future__ import annotations

import pytest

from ltx_wizard.core.trainer_output.failure_cause import FailureCause, config_error_cause, oom_cause
from ltx_wizard.core.trainer_output.line_parser import TrainerLogParser


def _cause(lines: list[str]) -> FailureCause:
    parser, cause = TrainerLogParser(), FailureCause()
    for i, line in enumerate(lines):
        for event in parser.feed(line, float(i)):
            cause.feed(event)
    for event in parser.finish():
        cause.feed(event)
    return cause


@pytest.mark.parametrize(
    "text, expected",
    [
        # a field the schema forbids (extra="forbid"), as scripts/train.py prints it
        (
            "Error: Invalid configuration data: 1 validation error for LtxTrainerConfig\n"
            "lora.rank\n"
            "  Input should be a valid integer, unable to parse string as an integer "
            "[type=int_parsing, input_value='x', input_type=str]\n"
            "    For further information visit https://errors.pydantic.dev/2.14/v/int_parsing",
            "invalid config: lora.rank: Input should be a valid integer, unable to parse string as an "
            "integer",
        ),
        # a model-level validator: pydantic prints no location line
        (
            "Error: Invalid configuration data: 1 validation error for LtxTrainerConfig\n"
            "  Value error, validation needs at least one prompt [type=value_error, input_value={}, "
            "input_type=dict]",
            "invalid config: Value error, validation needs at least one prompt",
        ),
        # not pydantic's layout (a YAML that is not a mapping): what was said is kept
        (
            "Error: Invalid configuration data: argument after ** must be a mapping, not str",
            "invalid config: argument after ** must be a mapping, not str",
        ),
    ],
)
def test_config_errors_keep_field_and_message(text, expected):
    assert config_error_cause(text) == expected


def test_a_long_config_error_is_one_bounded_line():
    errors = "".join(
        f"field_{i}\n  Extra inputs are not permitted [type=extra_forbidden]\n" for i in range(40)
    )
    text = f"Error: Invalid configuration data: 40 validation errors for LtxTrainerConfig\n{errors}"
    got = config_error_cause(text)
    assert got.startswith("invalid config: field_0: Extra inputs are not permitted; field_1:")
    assert len(got) <= 300 and "\n" not in got


def test_oom_keeps_the_allocation_and_drops_the_advice():
    line = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 1 has a "
        "total capacity of 23.64 GiB of which 3.06 MiB is free. Of the allocated memory 22 GiB "
        "is allocated by PyTorch. If reserved but unallocated memory is large try setting ..."
    )
    assert oom_cause(line) == (
        "CUDA out of memory. Tried to allocate 20.00 MiB. GPU 1 has a total "
        "capacity of 23.64 GiB of which 3.06 MiB is free."
    )


def test_the_allocation_line_wins_over_an_earlier_bare_oom_line():
    cause = _cause(
        [
            "RuntimeError: CUBLAS_STATUS_ALLOC_FAILED when calling cublasCreate",
            "Traceback (most recent call last):",
            '  File "train.py", line 1, in <module>',
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 "
            "has a total capacity of 79.19 GiB of which 1.00 GiB is free.",
        ]
    )
    assert cause.oom().startswith("CUDA out of memory. Tried to allocate 1.50 GiB.")


def test_a_config_error_beats_a_later_traceback_and_stopiteration_is_explained():
    cause = _cause(
        [
            "Error: Invalid configuration data: 1 validation error for LtxTrainerConfig",
            "seed",
            "  Input should be a valid integer [type=int_type]",
        ]
    )
    assert cause.crash() == "invalid config: seed: Input should be a valid integer"
    stop = _cause(
        ["Traceback (most recent call last):", '  File "trainer.py", line 220, in train', "StopIteration"]
    )
    assert stop.crash().startswith("StopIteration: the trial data holds fewer samples than batch x")
    assert _cause(["loading the model"]).crash() is None
