"""With LTX_WIZARD_REAL_CHECKOUT naming a real LTX-2 checkout (and LTX_WIZARD_TRAINER_PYTHON an
interpreter with torch, peft and einops; default: this one), the held-out loss program's fixed
sigma, its seeding and its LoRA loading are run against the real FlexibleStrategy and real PEFT
(real_trainer_check.py). Skipped otherwise: the trainer is not in CI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

CHECKOUT = os.environ.get("LTX_WIZARD_REAL_CHECKOUT")


@pytest.mark.skipif(not CHECKOUT, reason="LTX_WIZARD_REAL_CHECKOUT names no real LTX-2 checkout")
def test_the_programs_draws_and_lora_loading_hold_on_the_real_trainer(tmp_path):
    packages = Path(CHECKOUT or "") / "packages"
    env = {**os.environ, "PYTHONPATH": f"{packages / 'ltx-core' / 'src'}:{packages / 'ltx-trainer' / 'src'}"}
    python = os.environ.get("LTX_WIZARD_TRAINER_PYTHON", sys.executable)
    script = Path(__file__).parent / "real_trainer_check.py"
    done = subprocess.run(
        [python, str(script), str(tmp_path / "lora.safetensors")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "real FlexibleStrategy: sigma [0.5, 0.5]" in out
    assert "same seed -> identical noisy latents, mask, loss: True" in out
    assert "other seed -> different noisy latents: True" in out
    assert "LoRA loaded (on != off): True off == base model: True" in out
