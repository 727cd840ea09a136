"""The simulator as the core's `StandIn` (core/base/stand_in.py): the simulated trainer and
preprocessor run by module name, and the memory file the trainer keeps, read back as NVML would.

`choose_stand_ins` is the one place one is chosen: cli.py calls it for a command and the App's
start for the TUI, and both hand the value down; the core knows nothing of the names, variables
and files here.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Mapping

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.stand_in import StandIn, StandIns
from ltx_wizard.demo.sim.step_clock import STEP_CLOCK_ENV, StepClockReader
from ltx_wizard.demo.sim.vram_file import VRAM_FILE_ENV, VramFileReader

TRAINER_MODULE = "ltx_wizard.demo.sim.trainer"
PREPROCESS_MODULE = "ltx_wizard.demo.sim.preprocess"
PIPELINES_MODULE = "ltx_wizard.demo.sim.pipelines"
COMPARE_MODULE = "ltx_wizard.demo.sim.compare_programs"
GPU_ENV = "LTX_WIZARD_SIM_GPU"  # the preset the simulated trainer stands on
SPEED_ENV = "LTX_WIZARD_SIM_SPEED"
DEFAULT_PRESET = "h100"  # a simulated run whose launch recorded no preset
SCRIPT_ENV = "LTX_WIZARD_SIM_SCRIPT"  # the simulated preprocessor reads this script's parser
# "0": the simulated trainer environment cannot decode sound (torchaudio 2.9 without torchcodec):
# the audio gate's check fails as it would there, and the preprocessor writes no audio latents
AUDIO_DECODE_ENV = "LTX_WIZARD_SIM_AUDIO_DECODE"
# torchaudio 2.9's words where torchcodec is missing (torchaudio/_torchcodec.py load_with_torchcodec)
NO_TORCHCODEC = {
    "torchaudio": "2.9.0",
    "torchcodec": None,
    "ok": False,
    "error": "torchaudio.load: ImportError: TorchCodec is required for load_with_torchcodec. "
    "Please install torchcodec to use this function.",
    "torchcodec_error": "ModuleNotFoundError: No module named 'torchcodec'",
}
TRIAL_SPEED = 100.0  # trials sleep 1/100 of the time they report: demo trials ~3 s
# 128 GB of host RAM per simulated GPU (estimate: a DGX H100 carries 2 TB for 8 GPUs, cloud
# 8-GPU nodes 1-2 TB), so host RAM does not limit how many trials run side by side.
HOST_GB_PER_GPU = 128.0


class SimulatedTrainer:
    """`preset`: the simulated machine (core/gpu/presets.py). `speed`: trials' time compression.
    `env`: more variables for every trial (the tests' faults and speeds)."""

    host_gb_per_gpu = HOST_GB_PER_GPU

    def __init__(
        self, preset: str, *, speed: float = TRIAL_SPEED, env: Mapping[str, str] | None = None
    ) -> None:
        self.preset = preset
        self.time_scale = speed
        self.env = dict(env or {})

    def memory_env(self, scratch: Path, slot: int | None) -> dict[str, str]:
        name = ".sim-vram" if slot is None else f".sim-vram-{slot}"
        return {VRAM_FILE_ENV: str(scratch / name), **self.env}

    def trial_command(
        self, scratch: Path, slot: int | None, num_gpus: int
    ) -> tuple[list[str], dict[str, str]]:
        clock = ".sim-step-clock" if slot is None else f".sim-step-clock-{slot}"
        env = {
            GPU_ENV: self.preset,
            SPEED_ENV: f"{self.time_scale:g}",
            STEP_CLOCK_ENV: str(scratch / clock),
            **self.memory_env(scratch, slot),
        }
        if slot is None and num_gpus > 1:  # one process stands in for rank 0 of the plan's launch
            env.update(WORLD_SIZE=str(num_gpus), LOCAL_RANK="0")
        return [sys.executable, "-m", TRAINER_MODULE], env

    def step_clock(self, env: Mapping[str, str]) -> StepClockReader | None:
        path = env.get(STEP_CLOCK_ENV)
        return StepClockReader(path) if path else None

    def memory_reader(self, env: Mapping[str, str], gpu_count: int) -> VramFileReader:
        path = env.get(VRAM_FILE_ENV) or os.environ.get(VRAM_FILE_ENV)
        if not path:
            raise UsageError(
                f"simulated GPUs need a memory file: set {VRAM_FILE_ENV} to the file "
                "the simulated trainer writes"
            )
        return VramFileReader(path, gpu_count=max(gpu_count, 1))

    def launch(self, run_dir: Path, config: Path, quiet_flag: str) -> tuple[list[str], dict[str, str]]:
        return [sys.executable, "-m", TRAINER_MODULE, str(config), quiet_flag], {GPU_ENV: self.preset}

    def preprocess(self, script: Path, args: list[str]) -> tuple[list[str], dict[str, str]]:
        return [sys.executable, "-m", PREPROCESS_MODULE, *args], {SCRIPT_ENV: str(script)}

    async def audio_decode(self, clip: Path) -> Any:
        """The audio gate's check (core/preprocess/audio_gate.py) in the simulated trainer
        environment, judged as core/prepare/audio_env.py judges the real one's."""
        from ltx_wizard.core.prepare.audio_env import judge

        if {**os.environ, **self.env}.get(AUDIO_DECODE_ENV) == "0":
            return judge(dict(NO_TORCHCODEC), clip.name)
        return judge({"torchaudio": "2.9.0", "torchcodec": "0.8.0", "ok": True}, clip.name)

    def pipelines(self, module: str) -> tuple[list[str], dict[str, str]]:
        return [sys.executable, "-m", PIPELINES_MODULE, module], {GPU_ENV: self.preset, **self.env}

    def compare(self, program: Path, args: list[str]) -> tuple[list[str], dict[str, str]]:
        return [sys.executable, "-m", COMPARE_MODULE, program.stem, *args], {GPU_ENV: self.preset, **self.env}


def choose_stand_ins(preset: str | None, *, env: Mapping[str, str] | None = None) -> StandIns:
    """The one choice of the stand-in, made at start-up by cli.py (a command) and by the App's
    start (the TUI) from the same inputs: the simulator for `--simulate PRESET` / `--demo` (None
    on real GPUs), and for a run recorded as planned on simulated GPUs, the simulator on the preset
    its launch recorded (h100 where it recorded none). `env`: more variables for every simulated
    process (the tests' faults and speeds)."""
    extra = dict(env or {})

    def recorded(launch_env: Mapping[str, str]) -> StandIn:
        return SimulatedTrainer(launch_env.get(GPU_ENV) or DEFAULT_PRESET, env=extra)

    chosen = SimulatedTrainer(preset, env=extra) if preset else None
    return StandIns(chosen, recorded)


def plan_simulation(stand_ins: StandIns) -> dict[str, Any]:
    """What `prepare_plan` takes for the GPUs a plan is made on: the preset plan.json records and
    the stand-in launch.sh runs, read together from the one chosen, so that the CLI's `plan` and the
    TUI's Summary write the same launch.sh (a simulated plan never runs `uv run python scripts/train.py`)."""
    chosen = stand_ins.chosen
    return {"simulate": chosen.preset if chosen is not None else None, "stand_in": chosen}
