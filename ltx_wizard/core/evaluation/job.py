"""What an evaluation will run (`logs/eval-job.json`) and how far it has got (`logs/eval-state.json`).

The front end (`ltx-wizard eval`, the Results screen) decides everything (checkpoint, prompts,
commands, the production path's options) and writes the job; the job's own process only carries
it out, so a detached evaluation runs exactly what the user saw. Both files are the run's logs,
written through a temp file and a rename. Both are declared once in the run folder's codec
(core/io/run_codec.py): a damaged or unknown-shaped file is refused naming it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.evaluation.prompts import EvalPrompt
from ltx_wizard.core.io import run_folder
from ltx_wizard.core.io.run_codec import declare

JOB_REL = Path(run_folder.EVAL_JOB.rel)
STATE_REL = Path(run_folder.EVAL_STATE.rel)
LOG_REL = Path(run_folder.EVAL_LOG.rel)
PID_REL = Path(run_folder.EVAL_PID.rel)


@dataclass(frozen=True)
class Command:
    """One child process: argv, where it runs, the variables that differ from the user's."""

    argv: list[str]
    cwd: str
    env: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Production:
    """The ltx-pipelines path: the module, its fixed arguments (model files, settings), the
    memory options chosen for it, and what each render adds (pipeline_modes.py)."""

    module: str  # e.g. ltx_pipelines.ti2vid_one_stage
    prefix: Command  # argv up to and including the module's name
    args: list[str]  # model paths and settings, without prompt, seed, LoRA, output or size
    quantization: str | None = None  # --quantization
    offload: str | None = None  # --offload
    kind: str = "t2v"  # the mode: t2v, i2v, ic_lora, a2v, t2a
    # the run's validation conditions, filled per prompt as the trainer's samples are
    conditions: list[dict[str, Any]] = field(default_factory=list)
    multiple: int = 32  # width and height in steps of this
    ext: str = "mp4"  # what the entry point writes
    video: bool = True  # takes --width/--height


@dataclass(frozen=True)
class EvalJob:
    checkpoint: str
    checkpoint_note: str
    prompts: list[EvalPrompt]
    notes: list[str]
    dims: tuple[int, int, int]
    quantization: str | None  # the training config's acceleration.quantization
    trainer: Command  # CONFIG stands where the config path goes
    like_for_like: bool = True
    production: Production | None = None
    # what every render is conditioned with (eval_config.run_conditions), filled per prompt from
    # its row: the trainer's validation samples and the production renders alike
    conditions: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> str:
        return JOB_FILE.encode(self)


JOB_FILE = declare(run_folder.EVAL_JOB, EvalJob)


def write_job(run_dir: Path, job: EvalJob) -> Path:
    return JOB_FILE.write(run_dir, job)


def read_job(run_dir: Path) -> EvalJob:
    job = JOB_FILE.read(run_dir)
    if job is None:
        raise UsageError(f"{JOB_FILE.file.path(run_dir)} is missing: {JOB_FILE.file.fix}")
    return job


@dataclass(frozen=True)
class EvalState:
    state: str  # running, done, failed, stopped
    stage: str  # what runs now, in words
    done: int = 0  # stages finished
    total: int = 0
    error: str | None = None
    child_pid: int | None = None
    updated: float = 0.0

    def to_json(self) -> str:
        return STATE_FILE.encode(self)


STATE_FILE = declare(run_folder.EVAL_STATE, EvalState)


def write_state(run_dir: Path, state: EvalState) -> None:
    STATE_FILE.write(run_dir, replace(state, updated=time.time()))


def read_state(run_dir: Path) -> EvalState | None:
    """The job's progress; None when there is none or it cannot be read (a progress note only)."""
    return STATE_FILE.quietly(run_dir)
