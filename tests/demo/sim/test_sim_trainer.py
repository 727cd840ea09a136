"""The simulated trainer as a real subprocess, its output read back through the log parser."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ltx_wizard.core.trainer_output.line_events import (
    CheckpointSaved,
    ConfigError,
    MissingConfig,
    NanLoss,
    OomError,
    Statistics,
    StepEvent,
    StopIterationError,
    Traceback,
    ValidationSaved,
)
from ltx_wizard.core.trainer_output.line_parser import TrainerLogParser
from ltx_wizard.demo.lookalike_checkout import LOW_VRAM_TEXT, STANDARD_TEXT

ROOT = Path(__file__).resolve().parents[3]
MODULE = [sys.executable, "-m", "ltx_wizard.demo.sim.trainer"]


def trial_config(tmp_path: Path, text: str = STANDARD_TEXT, *, samples: int = 1, **replace) -> Path:
    """A 50-step trial config (as autotune writes it) over a data root of `samples` samples."""
    data = tmp_path / "data"
    for index in range(samples):
        for folder in ("latents", "conditions", "audio_latents"):
            (data / folder / "clips").mkdir(parents=True, exist_ok=True)
            (data / folder / "clips" / f"s{index}.pt").write_bytes(b"pt")
    (data / "latents" / "orphan.pt").write_bytes(b"no conditions: not a sample")
    model = tmp_path / "ltx-2.safetensors"
    model.write_bytes(b"look-alike")
    text = (
        text.replace('"/path/to/preprocessed/.precomputed"', f'"{data}"')
        .replace('"/path/to/ltx-2-checkpoint.safetensors"', f'"{model}"')
        .replace("steps: 2000", "steps: 50")
        .replace("interval: 250\n  video_cfg_scale", "interval: 50\n  video_cfg_scale")
        .replace("interval: 250\n  keep_last_n", "interval: null\n  keep_last_n")
        .replace('"outputs/t2v_lora"', f'"{tmp_path / "out"}"')
    )
    for old, new in replace.items():
        assert old in text, old
        text = text.replace(old, new)
    path = tmp_path / "config.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def run_sim(config: Path, *, flags=("--disable-progress-bars",), **env_vars):
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("LTX_") and k not in ("COLUMNS", "WORLD_SIZE", "LOCAL_RANK")
    }
    env.update(PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1", LTX_WIZARD_SIM_SPEED="0", **env_vars)
    proc = subprocess.run(
        [*MODULE, str(config), *flags],
        cwd=config.parent,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=60,
    )
    parser = TrainerLogParser()
    events = []
    for t, line in enumerate(proc.stdout.splitlines()):
        events += parser.feed(line, float(t))
    return proc.returncode, events + parser.finish(), proc.stdout


def of(events, kind):
    return [e for e in events if isinstance(e, kind)]


def test_a_fitting_trial_runs_to_the_end_and_writes_its_files(tmp_path):
    code, events, _ = run_sim(trial_config(tmp_path))
    assert code == 0
    steps = of(events, StepEvent)
    assert [s.step for s in steps] == [20, 40]
    assert all(1.5 < s.time_per_step_s < 1.7 for s in steps)  # uncompressed H100 figure
    assert [v.step for v in of(events, ValidationSaved)] == [0, 50]
    (checkpoint,) = of(events, CheckpointSaved)
    assert checkpoint.path == "checkpoints/lora_weights_step_00050.safetensors"
    header = (tmp_path / "out" / checkpoint.path).read_bytes()
    assert int.from_bytes(header[:8], "little") == len(header) - 8  # a valid, empty safetensors
    assert (tmp_path / "out" / "samples" / "step_000050_1.mp4").is_file()
    (stats,) = of(events, Statistics)
    assert 60 <= stats.peak_gpu_memory_gb <= 70
    assert not of(events, OomError) and not of(events, Traceback)


def test_the_first_step_line_already_projects_the_total_as_the_real_trainer_does(tmp_path):
    # trainer.py LtxvTrainer.train: "calculating..." only while no step is done, and the first
    # line comes at step 20 (real_t2v_lora_cols250.txt: "Step 20/40 ... Total Time: 0h 1m")
    _, _, out = run_sim(trial_config(tmp_path), COLUMNS="250")
    step_lines = [line for line in out.splitlines() if "Step 20/50" in line or "Step 40/50" in line]
    assert "Total Time: 0h 1m" in step_lines[0] and "Total Time: 0h 1m" in step_lines[1]
    assert "calculating" not in out
    assert len(step_lines[0]) == 250 and step_lines[0].endswith("trainer.py:307")


def test_without_the_flag_there_are_no_step_lines(tmp_path):
    code, events, _ = run_sim(trial_config(tmp_path), flags=())
    assert code == 0 and not of(events, StepEvent) and of(events, Statistics)


def test_multi_process_lines_carry_the_rank(tmp_path):
    code, events, _ = run_sim(trial_config(tmp_path, samples=2), WORLD_SIZE="2", LOCAL_RANK="0")
    assert code == 0
    assert {s.rank for s in of(events, StepEvent)} == {0}
    (stats,) = of(events, Statistics)
    assert (stats.num_processes, stats.global_batch) == (2, 2)


def test_relaxing_quantization_on_a_32gb_card_runs_out_of_memory(tmp_path):
    config = trial_config(tmp_path, LOW_VRAM_TEXT, **{'quantization: "int8-quanto"': "quantization: null"})
    code, events, out = run_sim(config, LTX_WIZARD_SIM_GPU="rtx5090")
    assert code == 1
    assert of(events, OomError) and "total capacity of 31.36 GiB" in of(events, OomError)[0].line
    assert of(events, Traceback)[0].last_line.startswith("torch.OutOfMemoryError")
    assert not of(events, StepEvent) and not of(events, ValidationSaved)
    assert "Loading transformer" in out


def test_the_low_vram_config_fits_a_32gb_card(tmp_path):
    code, events, _ = run_sim(trial_config(tmp_path, LOW_VRAM_TEXT), LTX_WIZARD_SIM_GPU="rtx5090")
    assert code == 0 and 30.5 < of(events, Statistics)[0].peak_gpu_memory_gb < 31.84


def test_checkpointing_off_on_an_h100_dies_at_the_first_training_step(tmp_path):
    config = trial_config(
        tmp_path, **{"enable_gradient_checkpointing: true": "enable_gradient_checkpointing: false"}
    )
    code, events, _ = run_sim(config)
    assert code == 1
    assert [v.step for v in of(events, ValidationSaved)] == [0]  # validation still fit
    assert of(events, OomError) and not of(events, StepEvent)


def test_nan_fault_shows_as_nan_loss_but_the_run_completes(tmp_path):
    code, events, _ = run_sim(trial_config(tmp_path), LTX_WIZARD_SIM_FAULT="nan")
    assert code == 0
    assert [n.step for n in of(events, NanLoss)] == [40]


def test_crash_fault_is_a_runtime_error_after_step_20(tmp_path):
    code, events, _ = run_sim(trial_config(tmp_path), LTX_WIZARD_SIM_FAULT="crash")
    assert code == 1
    assert [s.step for s in of(events, StepEvent)] == [20]
    assert of(events, Traceback)[0].last_line.startswith("RuntimeError:")
    assert not of(events, Statistics) and not of(events, OomError)


def test_a_batch_larger_than_the_data_stops_the_dataloader(tmp_path):
    config = trial_config(tmp_path, **{"batch_size: 1": "batch_size: 2"})
    code, events, _ = run_sim(config)
    assert code == 1
    assert of(events, StopIterationError) and of(events, Traceback)[0].last_line == "StopIteration"
    assert not of(events, OomError)
    (tmp_path / "two").mkdir()
    two_samples = trial_config(tmp_path / "two", samples=2, **{"batch_size: 1": "batch_size: 2"})
    code, _, _ = run_sim(two_samples)
    assert code == 0


@pytest.mark.parametrize(
    ("replace", "words"),
    [
        ({"\nseed: 42\n": "\nseed: 42\nsteps: 50\n"}, "extra_forbidden"),
        ({"  model_path: ": "  # model_path: "}, "model.model_path"),
        # unknown keys in any section, named by the trainer's field path
        ({"  video_cfg_scale: 3.0": "  cfg_scale: 4.0"}, "validation.cfg_scale\n  Extra inputs"),
        ({"  video_cfg_scale: 3.0": "  guidance_scale: 4.0"}, "guidance_scale is deprecated"),
        (
            {'  name: "flexible"': '  with_audio: false\n  name: "flexible"'},
            "training_strategy.flexible.with_audio\n  Extra inputs",
        ),
        (
            {
                '    is_generated: true\n    latents_dir: "latents"': '    is_generated: true\n    latents_dir: "latents"\n    frames: 9'
            },
            "training_strategy.flexible.video.frames",
        ),
        ({"lora:\n  rank: 32": "lora:\n  rank: 32\n  scale: 1"}, "lora.scale"),
        ({"  rank: 32\n  alpha: 32\n": "  rank: 32\n  alpha: 32.5\n"}, "lora.alpha"),
        ({"is_generated: true": "is_generated: false"}, "At least one modality must have is_generated=true"),
    ],
)
def test_bad_configs_are_config_errors(tmp_path, replace, words):
    code, events, out = run_sim(trial_config(tmp_path, **replace))
    assert code == 1, out
    (error,) = of(events, ConfigError)
    assert words in error.text
    assert not of(events, Traceback)


def test_config_errors_go_to_stdout_as_the_trainers(tmp_path):
    config = trial_config(tmp_path, **{"  video_cfg_scale: 3.0": "  cfg_scale: 4.0"})
    env = {k: v for k, v in os.environ.items() if not k.startswith("LTX_")}
    env.update(PYTHONPATH=str(ROOT), LTX_WIZARD_SIM_SPEED="0")
    proc = subprocess.run([*MODULE, str(config)], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and proc.stderr == ""
    assert proc.stdout.startswith(
        "Error: Invalid configuration data: 1 validation error for LtxTrainerConfig\n"
        "validation.cfg_scale\n  Extra inputs are not permitted"
    )
    missing = subprocess.run(
        [*MODULE, str(tmp_path / "nowhere.yaml")], env=env, capture_output=True, text=True, timeout=60
    )
    assert missing.returncode == 1 and missing.stderr == ""
    assert missing.stdout == f"Error: Configuration file {tmp_path / 'nowhere.yaml'} does not exist.\n"


def test_a_missing_config_file_is_reported_by_path(tmp_path):
    code, events, _ = run_sim(tmp_path / "nowhere.yaml")
    assert code == 1
    assert [m.path for m in of(events, MissingConfig)] == [str(tmp_path / "nowhere.yaml")]


def test_an_unknown_simulated_gpu_is_a_usage_error(tmp_path):
    code, _, out = run_sim(trial_config(tmp_path), LTX_WIZARD_SIM_GPU="gtx1080")
    assert code == 2 and "gtx1080" in out


def test_vram_file_follows_the_run_and_sigterm_stops_a_hung_trial(tmp_path):
    vram = tmp_path / "vram"
    env = {k: v for k, v in os.environ.items() if not k.startswith("LTX_")}
    env.update(
        PYTHONPATH=str(ROOT),
        PYTHONUNBUFFERED="1",
        LTX_WIZARD_SIM_SPEED="0",
        LTX_WIZARD_SIM_FAULT="hang",
        LTX_WIZARD_SIM_VRAM_FILE=str(vram),
        COLUMNS="250",
    )
    proc = subprocess.Popen(
        [*MODULE, str(trial_config(tmp_path)), "--disable-progress-bars"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        for line in proc.stdout:  # blocks until the hang point is reached
            if "Step 20/50" in line:
                break
        used_mib = int(vram.read_text())
        assert 60 * 1024 < used_mib < 80 * 1024  # the training level on an H100
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=10) == -signal.SIGTERM
    finally:
        proc.kill()
        proc.stdout.close()
    assert vram.read_text().strip() == "0"


def test_fewer_samples_than_processes_stop_the_dataloader_as_accelerate_shards_it(tmp_path):
    # trainer.py _init_dataloader: drop_last=True, then accelerate's BatchSamplerShard yields a
    # batch only when every process has a full one: 1 sample on 2 processes gives no batch
    code, events, out = run_sim(trial_config(tmp_path), WORLD_SIZE="2", LOCAL_RANK="0")
    assert code == 1 and of(events, StopIterationError) and not of(events, Statistics)
    # the real call path: the epoch restart in LtxvTrainer.train meets it again
    assert 'ltx_trainer/trainer.py", line 220, in train' in out
    assert 'scripts/train.py", line 59, in main' in out
    assert 'ltx_trainer/trainer.py", line 223, in train' in out


def test_tracebacks_name_torch_and_accelerate_in_the_checkouts_venv_wherever_the_sim_runs():
    from ltx_wizard.demo.sim.frames import accelerate_backward, site_packages

    checkout = Path("/home/user/LTX-2")
    assert site_packages(checkout / "packages" / "ltx-trainer") == (
        checkout / ".venv" / "lib" / "python3.11" / "site-packages"
    )
    for shallow in (Path("/"), Path("/srv")):  # a wizard started there runs its trials there
        assert str(accelerate_backward(shallow)[0][0]).startswith(str(shallow))


@pytest.mark.parametrize("keep, files", [(6, [10, 20, 30, 40, 50]), (5, [20, 30, 40, 50])])
def test_a_planned_spread_of_checkpoints_is_what_the_run_leaves(tmp_path, keep, files):
    """The plan's five checkpoints (core/plan/checkpoint_keep.py spread: every 10 of 50 steps,
    keep_last_n 6) all stay; keep_last_n 5 leaves four, as in the real trainer, whose save after
    the loop repeats step 50 and is counted twice (trainer.py `_save_checkpoint`)."""
    from ltx_wizard.core.plan.checkpoint_keep import spread

    assert spread(50, 5) == (10, 6)
    config = trial_config(
        tmp_path, **{"interval: null\n  keep_last_n: -1": f"interval: 10\n  keep_last_n: {keep}"}
    )
    code, events, _ = run_sim(config)
    assert code == 0
    assert [c.step for c in of(events, CheckpointSaved)] == [10, 20, 30, 40, 50, 50]
    left = sorted((tmp_path / "out" / "checkpoints").glob("lora_weights_step_*.safetensors"))
    assert [int(p.stem.rsplit("_", 1)[1]) for p in left] == files
