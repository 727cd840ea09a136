"""A stand-in for the trainer where the GPUs are not real (`StandIn`), handed to the core from
outside: the core runs the commands it is given and reads memory through it, and knows nothing
else of it. The wizard's own is the demo package's simulator, which the CLI and the TUI inject
for `--simulate` and `--demo`, chosen once at start-up (`StandIns`: cli.py for a command, the App's
start for the TUI) and handed down as a value; nothing below chooses one.
"""

from __future__ import annotations

from pathlib import Path
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Protocol


def step_moment(step: int) -> str:
    """A stand-in clock's name for the moment its line for `step` was printed."""
    return f"step:{step}"


TRAINING_STARTED = "training-started"  # its "Starting training" line: every load done


def validated_moment(step: int) -> str:
    """... and for the moment its step-`step` validation samples were saved."""
    return f"validated:{step}"


class StandIn(Protocol):
    # it sleeps 1/time_scale of the times it reports: measured wall times are scaled back by this
    time_scale: float
    # host RAM to assume per GPU, where the host's own says nothing about the machine planned for
    host_gb_per_gpu: float
    # the simulated machine (core/gpu/presets.py): its GPUs' memory is what renders are checked against
    preset: str

    def trial_command(
        self, scratch: Path, slot: int | None, num_gpus: int
    ) -> tuple[list[str], dict[str, str]]:
        """argv before CONFIG, and the environment, of one autotune trial writing under
        `scratch` (slot: the one GPU of a side-by-side trial; None: the plan's launch)."""

    def memory_env(self, scratch: Path, slot: int | None) -> dict[str, str]:
        """The environment that tells any trainer command where its memory readings go."""

    def step_clock(self, env: Mapping[str, str]) -> Callable[[str], float | None] | None:
        """The stand-in's own time (seconds, as it reports them) at which a process started with
        `env` reached a moment (step_moment, TRAINING_STARTED, validated_moment), for the step and
        validation times autotune decides on: measured from when the lines arrive, a stand-in's
        would carry the machine's load. None: measure them."""

    def memory_reader(self, env: Mapping[str, str], gpu_count: int) -> Any:
        """A vram_sampler backend reading what a process started with `env` reports."""

    def launch(self, run_dir: Path, config: Path, quiet_flag: str) -> tuple[list[str], dict[str, str]]:
        """launch.sh's command and environment for the full run of `config`."""

    def preprocess(self, script: Path, args: list[str]) -> tuple[list[str], dict[str, str]]:
        """The preprocessing command in place of the checkout's `script`, and its environment."""

    async def audio_decode(self, clip: Path) -> Any:
        """The audio gate's decode of `clip` (core/preprocess/audio_gate.py's check) in the
        stand-in's trainer environment: a core/prepare/audio_env.py AudioDecode."""

    def pipelines(self, module: str) -> tuple[list[str], dict[str, str]]:
        """The argv (up to and including the module) and environment standing in for
        `python -m <module>` of the checkout's ltx-pipelines."""

    def compare(self, program: Path, args: list[str]) -> tuple[list[str], dict[str, str]]:
        """The argv and environment standing in for `uv run python <program> <args>`, a program of
        trainer_side/ (the held-out loss, the LoRA health check), writing the same records."""


@dataclass(frozen=True)
class StandIns:
    """The stand-in chosen once at start-up, handed down to whatever runs a trainer command.
    `chosen`: for --simulate / --demo (None: real GPUs). `recorded`: the same simulator for a run
    the run folder records as planned on simulated GPUs, from its recorded launch environment
    (such a run is simulated again without --simulate: its launch.sh runs the simulator)."""

    chosen: StandIn | None = None
    recorded: Callable[[Mapping[str, str]], StandIn] | None = None

    def for_simulated_run(self, launch_env: Mapping[str, str] | None = None) -> StandIn | None:
        """The stand-in for a run recorded as simulated: the one chosen, else the recorded one."""
        if self.chosen is not None or self.recorded is None:
            return self.chosen
        return self.recorded(launch_env or {})


NO_STAND_IN = StandIns()  # real GPUs, and no simulator to resume a simulated run with
