"""A tiny run for ltx_wizard/trainer_side/tournament_render.py: heldout_kit.py's run (the look-alike
trainer, a tiny base model, LoRA checkpoints in the trainer's format) with a validation section as
core/evaluation/tournament.py writes compare-config.yaml: three prompts, 17 frames at 64x64, a seed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import ltx_wizard
from tests.trainer_side.heldout_kit import LOOKALIKE, write_run

SCRIPT = Path(ltx_wizard.__file__).parent / "trainer_side" / "tournament_render.py"  # run by path
PROMPTS = ("a red fox runs", "a boat at dusk", "rain on a window")


def write_tournament_run(run: Path) -> Path:
    write_run(run)
    samples = "".join(f"    - prompt: {p}\n" for p in PROMPTS)
    config = (run / "config.yaml").read_text(encoding="utf-8")
    validation = (
        "validation:\n  samples:\n"
        + samples
        + "  video_dims: [64, 64, 17]\n  seed: 42\n  inference_steps: 4\n  frame_rate: 25\n"
    )
    (run / "compare-config.yaml").write_text(config + validation, encoding="utf-8")
    return run


def run_tournament(
    run: Path, *args: str, python: str = sys.executable, extra_path: Path = LOOKALIKE, env: dict | None = None
):
    """The program as the wizard starts it: a separate interpreter, the trainer on its path."""
    env = {
        **os.environ,
        "PYTHONPATH": str(extra_path),
        "CUDA_VISIBLE_DEVICES": "",
        "OMP_NUM_THREADS": "1",
        **(env or {}),
    }
    cmd = [python, str(SCRIPT), "--config", str(run / "compare-config.yaml"), *args]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
