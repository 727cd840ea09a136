"""The validate-only run starts as the training run does: the command run.json records for
launch.sh (core/launch/script.py), with eval-config.yaml in config.yaml's place. Same GPUs
(CUDA_VISIBLE_DEVICES), same accelerate config and process count, same working directory; plus
the two variables launch.sh exports so the log gets the trainer's lines whole and at once.
"""

from __future__ import annotations

from pathlib import Path

from ltx_wizard.core.io import run_folder
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.stand_in import StandIn
from ltx_wizard.core.evaluation.job import Command
from ltx_wizard.core.io.run_meta import read_run_meta

CONFIG = "{CONFIG}"  # where the config path goes in the job's trainer argv
# launch.sh's exports (core/launch/script.py _BODY)
LOG_ENV = {"PYTHONUNBUFFERED": "1", "COLUMNS": "250"}


def trainer_command(run_dir: Path, stand_in: StandIn | None = None) -> tuple[Command, bool]:
    """(the trainer command with CONFIG in place of config.yaml, simulated?). UsageError when
    the run records no launch, or one that is not the trainer's (several nodes: sbatch). A
    stand-in given (simulated GPUs) runs in the trainer's place, as launch.sh's would."""
    run = Path(run_dir).resolve()
    if stand_in is not None:
        from ltx_wizard.core.launch.launch_command import QUIET_FLAG

        argv, env = stand_in.launch(run, Path(CONFIG), QUIET_FLAG)
        return Command(argv, str(run), {**env, **LOG_ENV}), True
    spec = read_run_meta(run).launch
    if spec is None:
        raise UsageError(
            f"{run}/run.json records no launch: plan the run again (ltx-wizard plan "
            "... --force) so the evaluation can start the trainer as training did"
        )
    if spec.argv[:1] == ["sbatch"]:
        raise UsageError(
            "this run trains on several nodes through Slurm, and the evaluation "
            "starts the trainer on this machine only: render with ltx-pipelines by "
            "hand (run-summary.md's render command)"
        )
    config = str(run_folder.CONFIG.path(run))
    argv = [CONFIG if arg == config else arg for arg in spec.argv]
    if CONFIG not in argv:
        raise UsageError(f"the launch in {run}/run.json does not run {config}: plan the run again")
    return Command(argv, str(spec.cwd), {**spec.env, **LOG_ENV}), spec.simulated


def with_config(command: Command, config: Path) -> list[str]:
    return [str(config) if arg == CONFIG else arg for arg in command.argv]
