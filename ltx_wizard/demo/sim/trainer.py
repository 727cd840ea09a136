"""Simulated LTX-2 trainer: `python -m ltx_wizard.demo.sim.trainer CONFIG [--disable-progress-bars]`.

Prints, writes files and fails like `scripts/train.py` on the real streams with the real exit
codes, on a simulated GPU, so the wizard's runner, parser and autotune can be exercised end to end.
Environment:
- LTX_WIZARD_SIM_GPU: a preset of ltx_wizard.core.gpu.presets (its first GPU; default "h100").
- WORLD_SIZE / LOCAL_RANK: processes and this one's rank (messages get `[rank N] `).
- LTX_WIZARD_SIM_SPEED (default 50): sleeps are divided by it (0: none); printed times are not.
- LTX_WIZARD_SIM_VRAM_FILE: the simulated used memory (MiB), replaced at each phase, 0 at exit.
- LTX_WIZARD_SIM_FAULT: nan (loss nan from step 40), hang (silent after 20), crash (after 20).
- LTX_WIZARD_SIM_PARAMS: transformer parameter count for the memory model.
- LTX_WIZARD_SIM_LEDGER: append one JSON line per process at its end (also on SIGTERM): the
  simulated seconds it ran and the GPUs it held; the autotune benchmark sums GPU-seconds from it.
Phase durations come from ltx_wizard.demo.sim.cost_model.
Like the real trainer: stdout block-buffered on a pipe unless PYTHONUNBUFFERED=1, no step lines
without --disable-progress-bars, SIGTERM kills it as it would kill Python (-15).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import signal
import sys
import time
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.base.stand_in import TRAINING_STARTED, step_moment, validated_moment
from ltx_wizard.core.gpu.presets import preset_gpus
from ltx_wizard.core.validation.validation_media import expected_reader, slot_problems
from ltx_wizard.demo.sim import frames
from ltx_wizard.demo.sim.compare_programs import mean_loss
from ltx_wizard.demo.sim.media_errors import media_error
from ltx_wizard.demo.sim import cost_model as cost
from ltx_wizard.demo.sim.clock import SimClock, float_env, int_env, process_age_s
from ltx_wizard.demo.sim.memory_model import MemoryEstimate, estimate, transformer_params
from ltx_wizard.demo.sim.resume import Saver, find_checkpoint, resume_step
from ltx_wizard.demo.tiny_video import render_sample
from ltx_wizard.demo.sim.schema import LtxTrainerConfig
from ltx_wizard.demo.sim.step_clock import STEP_CLOCK_ENV, StepStamps
from ltx_wizard.demo.sim.vram_file import VramFile as _Vram
from ltx_wizard.demo.sim.dataset_count import count_samples
from ltx_wizard.demo.sim.console import TrainerExit, TrainerOutput
from ltx_wizard.demo.sim.rich_format import (
    CHAINED,
    console_width,
    oom_message,
    traceback_lines,
)

_ACTIVE: "SimTrainer | None" = None  # the running trainer, for the SIGTERM handler's ledger entry


class SimTrainer:
    def __init__(self, cfg: LtxTrainerConfig, step_lines: bool) -> None:
        self.cfg, self.step_lines = cfg, step_lines
        self.raw = cfg.model_dump()
        gpu = preset_gpus(os.environ.get("LTX_WIZARD_SIM_GPU") or "h100")[0]
        self.gpu_name = gpu.name
        self.total_gb = (gpu.memory_total_bytes or 128 * 1024**3) / 1024**3
        self.world = max(1, int_env("WORLD_SIZE", 1))
        self.rank = int_env("LOCAL_RANK", 0)
        self.est: MemoryEstimate = estimate(self.raw, self.total_gb, self.world, self.gpu_name)
        self.fault = os.environ.get("LTX_WIZARD_SIM_FAULT", "")
        speed = float_env("LTX_WIZARD_SIM_SPEED", 50.0)
        self.speed = speed if speed > 0 and math.isfinite(speed) else 0.0
        self.vram = _Vram(os.environ.get("LTX_WIZARD_SIM_VRAM_FILE"))
        self.clock = SimClock(self.speed)
        self.stamps = StepStamps(os.environ.get(STEP_CLOCK_ENV))  # read as the wizard's clock
        self.wait = self.clock.wait
        self.config_path = Path(".")
        self.width = console_width()
        self.rng = random.Random(cfg.seed + self.rank)
        self.out = Path(cfg.output_dir)
        self.saver = Saver(self.raw, self.out)
        self.lora: str | None = None  # the weights load_checkpoint loaded (renders show them)
        self.output = TrainerOutput(self.world, self.rank, self.width, self.wait)
        self.log, self.traceback = self.output.log, self.output.traceback

    # -- output -----------------------------------------------------------------------------

    def write_ledger(self) -> None:
        if self.rank == 0:
            self.clock.write_ledger(str(self.config_path), self.world)

    # -- phases -----------------------------------------------------------------------------

    def run(self) -> int:
        b, raw = self.est.breakdown, self.raw
        total = self.total_gb
        cached = b["allocator_cache_gb"]
        load_fail = max(b["text_encoder_phase_gb"], b["load_phase_gb"]) > total
        val_fail = load_fail or b["validation_phase_gb"] > total
        train_fail = load_fail or b["train_phase_gb"] > total
        self.vram.set(b["cuda_context_gb"])
        # The modelled start-up includes this interpreter's own, already spent.
        self.wait(cost.start_s(self.world), process_age_s())
        self._load()
        initial = self._resume()
        samples = count_samples(self.cfg.data.preprocessed_data_root, raw["training_strategy"], self.output)
        steps, batch = self.cfg.optimization.steps, self.cfg.optimization.batch_size
        if self.rank == 0:
            self.saver.save_config()
        if initial >= steps:  # trainer.py train(): nothing left to train
            self.traceback(
                traceback_lines(
                    frames.NO_STEPS_LEFT,
                    f"ValueError: No remaining training steps: initial_step={initial} >= "
                    f"target_steps={steps}. Nothing to train.",
                    Path.cwd(),
                )
            )
        if initial:
            self.log(f"🚀 Resuming training from step {initial} → {steps}", 189)
        else:
            if self.rank == 0:
                self.stamps.stamp(TRAINING_STARTED, self.clock.now)
            self.log("🚀 Starting training...", 191)
        if self.step_lines:  # trainer.py LtxvTrainer.train, with --disable-progress-bars
            self.log(
                "Progress bars disabled. Intermediate status messages will be logged instead.",
                201,
                level="WARNING",
            )
        validation = raw["validation"]
        interval = validation.get("interval")
        # mirrors ltx_trainer/trainer.py LtxvTrainer.train: no interval, no validation at all
        if interval and not validation.get("skip_initial_validation", False):
            self._validate(initial, val_fail, b["validation_phase_gb"] + cached)
        # trainer.py _init_dataloader: DataLoader(drop_last=True) sharded by accelerate, which
        # hands out a batch only once every process has a full one (core/autotune/sweep/trial_subset.py)
        if batch * self.world > samples:  # the first batch is fetched before memory is touched
            self._stop_iteration()
        if train_fail:
            self._oom(b["train_phase_gb"], "train")
        self.wait(cost.PREPARE_S)
        self.vram.set(b["train_phase_gb"] + cached)
        train_start = self.clock.now
        accumulation = int(raw["optimization"].get("gradient_accumulation_steps") or 1)
        for step in range(initial + 1, steps + 1):  # an optimizer step: `accumulation` batches
            duration = self.est.step_time_s * accumulation * self.rng.uniform(0.97, 1.03)
            self.wait(duration)
            if step % 20 == 0 and self.step_lines:
                self.stamps.stamp(step_moment(step), self.clock.now)
                self._step_line(step, steps, duration, train_start, initial)
            if self.fault == "hang" and step == 20:
                while True:
                    time.sleep(3600)
            if self.fault == "crash" and step == 20:
                self._crash()
            if interval and step % interval == 0:
                self._validate(step, val_fail, b["validation_phase_gb"] + cached)
            ckpt = raw["checkpoints"].get("interval")
            if self.rank == 0 and ckpt and step % ckpt == 0:
                self._checkpoint(step)
        if self.rank == 0:
            # trainer.py LtxvTrainer.train: the save after the loop, always, even when the last
            # step was just saved (its path is counted twice by keep_last_n)
            self._checkpoint(steps)
            self._statistics(steps, batch, self.clock.now - train_start)
        self.wait(cost.TEARDOWN_S)
        return 0

    def _load(self) -> None:
        raw, b = self.raw, self.est.breakdown
        accel = raw["acceleration"]
        prompts = cost.validation_prompts(raw)
        # The lines are the real trainer's (its logger prints DEBUG on rank 0), source lines too.
        if prompts:  # ValidationRunner._cache_prompt_embeddings: no prompts, no Gemma
            self.log(
                "Loading text encoder for validation embedding caching...",
                333,
                "validation_runner.py",
                "DEBUG",
            )
            self.vram.set(b["text_encoder_phase_gb"])
            self.wait(cost.text_encoder_s(raw))
            self.log(
                f"Pre-computing embeddings for {prompts} validation prompts...", 346, "validation_runner.py"
            )
            self.log(
                "Validation prompt embeddings cached. Text encoder unloaded.",
                367,
                "validation_runner.py",
                "DEBUG",
            )
            self._validation_media()  # _encode_conditioning_media: only with samples
            self.vram.set(b["cuda_context_gb"])
        self.wait(cost.vae_decoder_s(raw))
        self.log("Loading transformer...", 412, level="DEBUG")  # trainer.py LtxvTrainer._load_models
        # ltx_core/model/transformer/model.py LTXModel.__init__ logs the kernels it was built with
        self.log(
            "Building transformer with attention backends -- self: PYTORCH, masked: PYTORCH", 87, "model.py"
        )
        self.wait(cost.transformer_load_s(transformer_params()))
        self.log("Loading embeddings processor...", 424, level="DEBUG")
        self.vram.set(b["load_phase_gb"] - b["quantization_buffers_gb"])
        quantization = accel.get("quantization")
        if quantization and self.cfg.model.training_mode == "full":
            self.traceback(traceback_lines(frames.FULL_QUANTIZED, frames.FULL_QUANTIZED_ERROR, Path.cwd()))
        if quantization:
            self.log(f'Quantizing model with "{quantization}". This may take a while...', 443)
            self.log(
                "Quantizing model using block-by-block approach for memory efficiency",
                91,
                "quantization.py",
                "DEBUG",
            )
            self.wait(cost.quantization_s(raw, transformer_params()))
        if self.cfg.model.training_mode == "lora":  # trainer.py LtxvTrainer._setup_lora
            self.log(
                f"Adding LoRA adapter with rank {(raw.get('lora') or {}).get('rank', 32)}", 472, level="DEBUG"
            )
        self.vram.set(b["load_phase_gb"])

    def _validation_media(self) -> None:
        # mirrors ltx_trainer/validation_runner.py ValidationRunner.__init__: every validation
        # condition's media is encoded when the trainer starts, so a missing file stops it here.
        unreadable = slot_problems(self.raw)  # the first one the trainer meets stops it
        if unreadable:
            slot = unreadable[0][0]
            self.traceback(
                traceback_lines(
                    frames.VALIDATION_MEDIA,
                    media_error(expected_reader(slot, slot.value), slot.value),
                    Path.cwd(),
                )
            )

    def _validate(self, step: int, fails: bool, level_gb: float) -> None:
        if fails:
            self._oom(self.est.breakdown["validation_phase_gb"], "validation")
        prompts = cost.validation_prompts(self.raw)
        if not prompts:  # trainer.py _run_validation returns at once without samples
            return
        self.vram.set(level_gb)
        videos = prompts * int(self.raw["validation"].get("videos_per_prompt") or 1)
        # round-robin over the ranks: this one (rank 0) makes ceil(videos / world) of them
        self.wait(cost.validation_round_s(self.raw, self.gpu_name, self.world))
        for index in range(1, videos + 1):
            if self.rank == 0:
                render_sample(
                    self.raw, index - 1, self.lora, self.out / "samples" / f"step_{step:06d}_{index}.mp4"
                )
        if self.rank == 0:
            self.stamps.stamp(validated_moment(step), self.clock.now)
            self.log(
                f"🎥 Validation samples for step {step} saved in samples", 310, "validation_runner.py"
            )  # ValidationRunner.run: relative to output_dir

    def _step_line(
        self, step: int, steps: int, duration: float, train_start: float, initial: int = 0
    ) -> None:
        lr = self.cfg.optimization.learning_rate
        if self.cfg.optimization.scheduler_type == "linear":
            lr *= 1 - step / steps
        if self.fault == "nan" and step >= 40:
            loss = "nan"
        else:
            loss = f"{mean_loss(step) + abs(self.rng.gauss(0, 0.01)):.4f}"
        # trainer.py LtxvTrainer.train: "calculating..." only before any step is done
        if step - initial <= 0:
            projection = "calculating..."
        else:  # elapsed / steps done * remaining steps
            total_s = (self.clock.now - train_start) / (step - initial) * (steps - initial)
            projection = f"{int(total_s // 3600)}h {int(total_s % 3600 // 60)}m"
        self.log(
            f"Step {step}/{steps} - Loss: {loss}, LR: {lr:.2e}, Time/Step: {duration:.2f}s, "
            f"Total Time: {projection}",
            307,
        )

    def _checkpoint(self, step: int) -> None:
        self.wait(cost.checkpoint_save_s(self.raw, transformer_params()))
        self.log(self.saver.save(step), 981)  # trainer.py LtxvTrainer._save_checkpoint

    def _resume(self) -> int:
        try:
            step = resume_step(self.raw, self.log)
            wanted = self.raw["model"].get("load_checkpoint")  # the weights the renders carry
            found = find_checkpoint(Path(wanted)) if wanted else None
            self.lora = str(found) if found is not None else None
            return step
        except ValueError as exc:  # trainer.py _find_checkpoint
            self.traceback(traceback_lines(frames.LOAD_CHECKPOINT, f"ValueError: {exc}", Path.cwd()))

    def _statistics(self, steps: int, batch: int, train_s: float) -> None:
        lines = [
            "📊 Training Statistics:",
            f" - Total time: {self.clock.now / 60:.1f} minutes",
            f" - Training speed: {steps / train_s:.2f} steps/second",
            f" - Samples/second: {steps * batch * self.world / train_s:.2f}",
            f" - Peak GPU memory: {self.est.peak_gb:.2f} GB",
        ]
        if self.world > 1:
            accumulation = int(self.raw["optimization"].get("gradient_accumulation_steps") or 1)
            lines += [
                f" - Number of processes: {self.world}",
                f" - Global batch size: {batch * accumulation * self.world}",
            ]
        self.log("\n".join(lines), 935)  # trainer.py LtxvTrainer._log_training_stats

    # -- failures ---------------------------------------------------------------------------

    def _oom(self, need_gb: float, phase: str) -> None:
        capacity = self.total_gb - 0.48
        free = self.rng.uniform(0.2, 1.1)
        tried = min(2.5, max(0.12, need_gb - capacity + free))
        self.vram.set(capacity - free)
        where = (
            frames.BACKWARD + frames.accelerate_backward(Path.cwd())
            if phase == "train"
            else frames.VALIDATION
        )
        self.traceback(
            traceback_lines(where, oom_message(tried, self.rank, capacity, free), Path.cwd()),
            cost.OOM_TEARDOWN_S,
        )

    def _stop_iteration(self) -> None:
        # An empty DataLoader: the trainer's epoch restart meets StopIteration a second time.
        first = traceback_lines(frames.next_batch(Path.cwd(), 220), "StopIteration", Path.cwd())
        second = traceback_lines(
            [frames.TRAIN, frames.next_batch(Path.cwd(), 223)[0]], "StopIteration", Path.cwd()
        )
        self.traceback(first + CHAINED + second)

    def _crash(self) -> None:
        self.traceback(
            traceback_lines(
                frames.BACKWARD,
                "RuntimeError: CUDA error: an illegal memory access was encountered (simulated fault)",
                Path.cwd(),
            )
        )


def _load_config(path: Path) -> LtxTrainerConfig:
    # mirrors ltx_trainer scripts/train.py main: both messages go to stdout (typer.echo), exit 1
    if not path.exists():
        print(f"Error: Configuration file {path} does not exist.", flush=True)
        raise TrainerExit(1)
    try:
        data: Any = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
    except YAMLError:
        raise  # the trainer's yaml.safe_load raises outside its try: a traceback
    try:
        return LtxTrainerConfig(**data)
    except (TypeError, ValueError, ValidationError) as exc:
        print(f"Error: Invalid configuration data: {exc}", flush=True)
        raise TrainerExit(1) from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="train.py", description="Simulated LTX-2 trainer")
    parser.add_argument("config")
    parser.add_argument("--disable-progress-bars", action="store_true")
    args = parser.parse_args(argv)
    global _ACTIVE
    vram = _Vram(os.environ.get("LTX_WIZARD_SIM_VRAM_FILE"))

    def on_stop(signum, frame):  # the GPU frees its memory, then die of it as Python would
        vram.set(0)
        if _ACTIVE is not None:
            _ACTIVE.write_ledger()
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    # SIGINT as SIGTERM: the wizard's stop rule says SIGINT first (core/proc/stop.py), which
    # torchrun passes on to the ranks as it does SIGTERM
    signal.signal(signal.SIGTERM, on_stop)
    signal.signal(signal.SIGINT, on_stop)
    try:
        cfg = _load_config(Path(args.config))
        _ACTIVE = SimTrainer(cfg, args.disable_progress_bars)
        _ACTIVE.config_path = Path(args.config)
        return _ACTIVE.run()
    except TrainerExit as stop:
        return stop.code
    except WizardError as exc:
        print(f"simulated trainer: {exc.message}", file=sys.stderr)
        return exc.exit_code
    finally:
        vram.set(0)
        if _ACTIVE is not None:
            _ACTIVE.write_ledger()


if __name__ == "__main__":
    sys.exit(main())
