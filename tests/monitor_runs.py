"""Run folders for the monitor's tests, built from the trainer's real log format.

The logs are the samples in tests/data/trainer_logs (rich layout of the real trainer, wrapped at
80 or 250 columns), behind the marker launch.sh writes; checkpoints and samples are empty files
named as the trainer names them; a live run is a real process whose pid the pid file holds.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from ltx_wizard.core.io.pid_records import record_text

LOGS = Path(__file__).parent / "data" / "trainer_logs"
MARKER = "=== 2026-01-02T03:04:00Z launch.sh started, pid {pid}\n"

CONFIG = """\
model:
  model_path: /models/ltx-2/ltx-2-19b-dev.safetensors
  text_encoder_path: /models/gemma
  training_mode: lora
  load_checkpoint: null
lora:
  rank: 32
optimization:
  steps: {steps}
  batch_size: 1
  learning_rate: 0.0001
  optimizer_type: adamw
  scheduler_type: linear
  enable_gradient_checkpointing: {gc}
acceleration:
  load_text_encoder_in_8bit: false
  offload_optimizer_during_validation: false
  mixed_precision_mode: bf16
validation:
  prompts: ["a kite over the sea"]
  video_dims: [960, 544, 89]
  interval: {val_interval}
checkpoints:
  interval: {ck_interval}
output_dir: {out}
"""


def sample_log(name: str) -> str:
    return (LOGS / f"{name}.txt").read_text(encoding="utf-8")


def make_run(
    root: Path,
    log: str | None = None,
    *,
    steps: int = 50,
    gc: bool = True,
    ck_interval: int = 20,
    val_interval: int = 50,
    checkpoints: tuple[tuple[int, bool], ...] = (),
    samples: tuple[int, ...] = (),
) -> Path:
    """A run folder: plan.md, config.yaml, logs/train.log (after the launch marker), and
    checkpoints `(step, with training state)` in outputs/checkpoints."""
    run = root / "run"
    (run / "logs").mkdir(parents=True)
    (run / "plan.md").write_text("# Plan\n", encoding="utf-8")
    out = run / "outputs"
    (run / "config.yaml").write_text(
        CONFIG.format(
            steps=steps, gc=str(gc).lower(), out=out, ck_interval=ck_interval, val_interval=val_interval
        ),
        encoding="utf-8",
    )
    if log is not None:
        (run / "logs" / "train.log").write_text(MARKER.format(pid=4321) + log, encoding="utf-8")
    for step, with_state in checkpoints:
        folder = out / "checkpoints"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"lora_weights_step_{step:05d}.safetensors").write_bytes(b"weights %d" % step)
        if with_state:
            (folder / f"training_state_step_{step:05d}.pt").write_bytes(b"state %d" % step)
    for step in samples:
        (out / "samples").mkdir(parents=True, exist_ok=True)
        (out / "samples" / f"step_{step:06d}_1.mp4").write_bytes(b"mp4")
    return run


def start_live(run: Path) -> subprocess.Popen:
    """A process standing in for the trainer, in its own session, recorded in the pid file after
    it started (as launch.sh does). The caller ends it."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"], start_new_session=True)
    (run / "logs" / "train.pid").write_text(record_text(proc.pid), encoding="utf-8")
    return proc


def end(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, 9)
    proc.wait()


# One sample per failure class the monitor tells apart, with what it must say.
FAILURES = {
    "oom": ("oom_cols80", "Tried to allocate 2.50 GiB"),
    "oom_ranks": ("oom_two_gpu_ranks", "Tried to allocate 2.50 GiB"),
    "nan": ("nan_loss", "NaN from step 40"),
    "config": ("real_config_errors_cols80", "invalid config"),
    "missing_file": ("real_missing_config_cols80", "does not exist"),
}


H100_CSV = "name, memory.total [MiB]\nNVIDIA H100 80GB HBM3, 81559 MiB\n"


def failed_launch(box, *, trainer_gone: bool = False) -> Path:
    """A run planned for a real GPU (from a CSV) whose launch.sh, run by bash, dies before the
    trainer's first line, leaving what bash printed in train.log: at `exec uv ...` on a PATH
    without uv, or (`trainer_gone`) at its `cd` into a trainer folder moved away since the plan.
    `box`: a tests/model_tree.py ModelTree."""
    import shutil

    from ltx_wizard.cli import main

    csv = box.ws.parent / "gpus.csv"
    csv.write_text(H100_CSV)
    assert main(box.args("--from-csv", str(csv), sim=None)) == 0
    env = dict(os.environ)
    if trainer_gone:
        trainer = box.checkout / "packages" / "ltx-trainer"
        trainer.rename(trainer.with_name("ltx-trainer.moved"))
    else:
        bin_dir = box.ws.parent / "bin-without-uv"  # the tools launch.sh uses, and no uv
        bin_dir.mkdir()
        for tool in ("bash", "grep", "mkdir", "rm", "mv", "date", "tee", "cat"):
            found = shutil.which(tool)
            if found:
                os.symlink(found, bin_dir / tool)
        env["PATH"] = str(bin_dir)
    done = subprocess.run(
        ["bash", str(box.run / "launch.sh")], env=env, capture_output=True, text=True, timeout=60
    )
    shown = done.stdout + done.stderr  # after its `exec > >(tee ...)`, bash's errors go to stdout
    expected = (1, "No such file or directory") if trainer_gone else (127, "exec: uv: not found")
    assert done.returncode == expected[0] and expected[1] in shown, shown
    return box.run
