"""With LTX_WIZARD_REAL_CHECKOUT naming a real LTX-2 checkout (and LTX_WIZARD_TRAINER_PYTHON an
interpreter with the trainer's dependencies; default: this one), tournament_render.py's calls into
the trainer hold on the real code: ValidationRunner's constructor and run(), TrainingProgress, and
the config's fields it reads, by the keyword names the program passes. A tiny model with a Gemma
text encoder and a VAE decoder for a real render is not built here. Skipped otherwise: the trainer
is not in CI."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

CHECKOUT = os.environ.get("LTX_WIZARD_REAL_CHECKOUT")
pytestmark = pytest.mark.skipif(not CHECKOUT, reason="LTX_WIZARD_REAL_CHECKOUT names no real LTX-2 checkout")

CHECK = """
import inspect
from ltx_trainer.config import AccelerationConfig, ModelConfig
from ltx_trainer.progress import TrainingProgress
from ltx_trainer.validation_runner import ValidationRunner
init = set(inspect.signature(ValidationRunner.__init__).parameters)
run = set(inspect.signature(ValidationRunner.run).parameters)
progress = set(inspect.signature(TrainingProgress.__init__).parameters)
print("init", {"config", "model_path", "text_encoder_path", "video_vae_path", "audio_vae_path",
               "load_text_encoder_in_8bit"} <= init)
print("run", {"transformer", "step", "output_dir", "device", "progress", "wandb_run"} <= run)
print("progress", {"enabled", "total_steps"} <= progress)
print("fields", {"video_vae_path", "audio_vae_path"} <= set(ModelConfig.model_fields)
      and "load_text_encoder_in_8bit" in AccelerationConfig.model_fields)
"""


def test_the_programs_calls_match_the_real_trainers_validation_runner():
    packages = Path(CHECKOUT or "") / "packages"
    env = {**os.environ, "PYTHONPATH": f"{packages / 'ltx-core' / 'src'}:{packages / 'ltx-trainer' / 'src'}"}
    python = os.environ.get("LTX_WIZARD_TRAINER_PYTHON", sys.executable)
    done = subprocess.run([python, "-c", CHECK], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["init", "True", "run", "True", "progress", "True", "fields", "True"]
