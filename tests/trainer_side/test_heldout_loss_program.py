"""ltx_wizard/trainer_side/heldout_loss.py, run as the wizard will run it (a separate interpreter
with the trainer on its path; here the look-alike trainer of tests/trainer_side/lookalike/): the
same checkpoints give the same file twice, an all-zero LoRA has effect 0 and the base model's loss,
a NaN LoRA never reads as a number, and a missing held-out folder is named with a non-zero exit."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from ltx_wizard.core.compare.loss_record import loss_file, loss_line, read_loss_record
from tests.trainer_side.heldout_kit import run_program, write_lora, write_run

CHECKPOINTS = ("lora_weights_step_00100", "lora_weights_step_00200", "lora_weights_step_00300")


# One worker runs this module (`--dist loadgroup`), so its costly module fixture runs once.
pytestmark = pytest.mark.xdist_group("heldout_loss_program")


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory) -> tuple[Path, Path, Path]:
    """One run, its checkpoints (trained, all zeros, NaN) evaluated twice with --base, and the
    trained one once alone."""
    run = write_run(tmp_path_factory.mktemp("heldout") / "run")
    write_lora(run / f"{CHECKPOINTS[0]}.safetensors", seed=5)
    write_lora(run / f"{CHECKPOINTS[1]}.safetensors", seed=6, scale=0.0)
    write_lora(run / f"{CHECKPOINTS[2]}.safetensors", seed=7, scale=math.nan)
    outs = []
    for name in ("first", "second"):
        out = run / name / "outputs" / "compare"
        done = run_program(
            run,
            "--held-out",
            str(run / "dataset" / "heldout" / ".precomputed"),
            "--out-dir",
            str(out),
            "--base",
            *(str(run / f"{c}.safetensors") for c in CHECKPOINTS),
        )
        assert done.returncode == 0, done.stderr[-2000:]
        outs.append(run / name)
    alone = run / "alone" / "outputs" / "compare"  # the trained one alone: no base pass cached before it
    done = run_program(
        run,
        "--held-out",
        str(run / "dataset" / "heldout" / ".precomputed"),
        "--out-dir",
        str(alone),
        str(run / f"{CHECKPOINTS[0]}.safetensors"),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return run, outs[0], outs[1]


def _without_seconds(path: Path) -> bytes:
    """The file's bytes less its one measured field (the wall time)."""
    return b"".join(line for line in path.read_bytes().splitlines(True) if b'"seconds":' not in line)


def test_the_same_checkpoints_give_the_same_file_twice_and_the_core_reads_it(evaluated):
    run, first, second = evaluated
    for checkpoint in (None, *(run / f"{c}.safetensors" for c in CHECKPOINTS)):
        a, b = loss_file(first, checkpoint), loss_file(second, checkpoint)  # the core's names
        assert _without_seconds(a) == _without_seconds(b)
        record = read_loss_record(a)
        assert record is not None and read_loss_record(b) is not None
        assert loss_line(record) == loss_line(read_loss_record(b))
        assert record.sigmas == (0.1, 0.3, 0.5, 0.7, 0.9) and record.strategy == "FlexibleStrategy"
        # as many training samples as held-out ones, chosen by the seed
        assert len(record.held_out.samples) == len(record.train.samples) == 3
    trained = read_loss_record(loss_file(first, run / f"{CHECKPOINTS[0]}.safetensors"))
    assert trained.step == 100 and trained.forward_passes == 30  # the base's held-out passes are reused


def test_a_trained_lora_moves_the_prediction_and_an_all_zero_one_does_not(evaluated):
    run, first, _ = evaluated
    base = read_loss_record(loss_file(first, None))
    trained = read_loss_record(loss_file(first, run / f"{CHECKPOINTS[0]}.safetensors"))
    zeros = read_loss_record(loss_file(first, run / f"{CHECKPOINTS[1]}.safetensors"))
    assert base.effect is None and base.checkpoint is None
    assert trained.effect is not None and trained.effect > 0.001
    assert trained.held_out.loss != base.held_out.loss
    assert zeros.effect == 0.0
    # evaluated alone, the trained one has the same numbers: the base's passes ran with the LoRA off
    alone = read_loss_record(loss_file(run / "alone", run / f"{CHECKPOINTS[0]}.safetensors"))
    assert (alone.effect, alone.held_out, alone.train) == (trained.effect, trained.held_out, trained.train)
    assert alone.forward_passes == 45  # 15 held-out passes with the LoRA, 15 without, 15 training ones
    assert (zeros.held_out, zeros.train) == (base.held_out, base.train)


def test_a_nan_lora_never_reads_as_a_number(evaluated):
    run, first, _ = evaluated
    path = loss_file(first, run / f"{CHECKPOINTS[2]}.safetensors")
    json.loads(path.read_text())  # strict JSON: no NaN literal
    record = read_loss_record(path)
    assert record.held_out.loss is None and record.train.loss is None and record.effect is None
    assert loss_line(record) == (
        "step 300: held-out loss not finite (3 clips), train not finite (3 clips); effect not finite against base"
    )


def test_a_missing_held_out_folder_is_named_and_exits_non_zero(tmp_path):
    run = write_run(tmp_path / "run", train=2, held=1)
    missing = tmp_path / "run" / "dataset" / "nothing-held-out"
    done = run_program(run, "--held-out", str(missing), "--out-dir", str(tmp_path / "out"), "--base")
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"heldout_loss: the held-out latents folder {missing} does not exist: preprocess the held-out clips first"
    )
    assert not (tmp_path / "out").exists()


def test_outside_the_trainers_environment_it_names_what_is_missing_and_how_to_run_it(tmp_path):
    run = write_run(tmp_path / "run", train=2, held=1)
    empty = tmp_path / "no-trainer"  # the wizard's own environment: no ltx_trainer, peft, ltx_core
    empty.mkdir()
    held = str(run / "dataset" / "heldout" / ".precomputed")
    done = run_program(
        run, "--held-out", held, "--out-dir", str(tmp_path / "out"), "--base", extra_path=empty
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    said = done.stderr.strip()
    assert said.startswith("heldout_loss: ") and "\n" not in said
    assert "peft, ltx_trainer, ltx_core cannot be imported here" in said
    assert "LTX-2 trainer's environment" in said and "ltx-wizard compare RUN" in said
    assert not (tmp_path / "out").exists()
