"""With LTX_WIZARD_REAL_CHECKOUT naming a real LTX-2 checkout (and LTX_WIZARD_TRAINER_PYTHON an
interpreter with torch, peft, einops and transformers; default: this one), the held-out loss program
runs on the real trainer's code: its config schema on the shipped t2v_lora.yaml, its loaders on a
tiny model in the trainer's on-disk format (real_tiny_ltx.py), its FlexibleStrategy and real PEFT.
Skipped otherwise: the trainer is not in CI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ltx_wizard.core.compare.loss_record import loss_file, read_loss_record

CHECKOUT = os.environ.get("LTX_WIZARD_REAL_CHECKOUT")
HERE = Path(__file__).parent
PROGRAM = HERE.parents[1] / "ltx_wizard" / "trainer_side" / "heldout_loss.py"
pytestmark = pytest.mark.skipif(not CHECKOUT, reason="LTX_WIZARD_REAL_CHECKOUT names no real LTX-2 checkout")


def _trainer(*argv: str | Path) -> subprocess.CompletedProcess[str]:
    packages = Path(CHECKOUT or "") / "packages"
    env = {**os.environ, "PYTHONPATH": f"{packages / 'ltx-core' / 'src'}:{packages / 'ltx-trainer' / 'src'}"}
    python = os.environ.get("LTX_WIZARD_TRAINER_PYTHON", sys.executable)
    done = subprocess.run([python, *map(str, argv)], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def test_the_programs_draws_and_lora_loading_hold_on_the_real_trainer(tmp_path):
    out = _trainer(HERE / "real_trainer_check.py", tmp_path / "lora.safetensors").stdout
    assert "real FlexibleStrategy: sigma [0.5, 0.5]" in out
    assert "same seed -> identical noisy latents, mask, loss: True" in out
    assert "other seed -> different noisy latents: True" in out
    assert "LoRA loaded (on != off): True off == base model: True" in out


def _without_seconds(path: Path) -> bytes:
    return b"".join(line for line in path.read_bytes().splitlines(True) if b'"seconds":' not in line)


def test_the_held_out_loss_of_a_tiny_real_model_is_the_same_twice(tmp_path):
    run = tmp_path / "run"
    _trainer(HERE / "real_tiny_ltx.py", run, Path(CHECKOUT or "") / "packages" / "ltx-trainer" / "configs")
    checkpoints = sorted((run / "outputs" / "checkpoints").glob("lora_weights_step_*.safetensors"))
    for name in ("first", "second"):
        held = (
            "--held-out",
            run / "heldout" / ".precomputed",
            "--out-dir",
            run / name / "outputs" / "compare",
        )
        _trainer(PROGRAM, "--config", run / "config.yaml", *held, "--base", *checkpoints)
    records = {}
    for checkpoint in (None, *checkpoints):
        first, second = loss_file(run / "first", checkpoint), loss_file(run / "second", checkpoint)
        assert _without_seconds(first) == _without_seconds(second)
        records[checkpoint and checkpoint.stem] = read_loss_record(first)
    base, zeros = records[None], records["lora_weights_step_00300"]
    assert zeros.effect == 0.0 and (zeros.held_out, zeros.train) == (base.held_out, base.train)
    assert records["lora_weights_step_00200"].effect > records["lora_weights_step_00100"].effect > 0
