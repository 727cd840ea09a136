"""What an evaluation will run (`logs/eval-job.json`) and how far it has got (`logs/eval-state.json`).

The front end (`ltx-wizard eval`, the Results screen) decides everything (checkpoint, prompts,
commands, the production path's options) and writes the job; the job's own process only carries
it out, so a detached evaluation runs exactly what the user saw. Both files are the run's logs,
written through a temp file and a rename.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.evaluation.prompts import EvalPrompt
from ltx_wizard.core.io.bounded import JSON_MAX_BYTES, loads_json, read_bytes
from ltx_wizard.core.io.safe_fs import write_text

JOB_REL = Path("logs") / "eval-job.json"
STATE_REL = Path("logs") / "eval-state.json"
LOG_REL = Path("logs") / "eval.log"
PID_REL = Path("logs") / "eval.pid"


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
        return json.dumps(asdict(self), indent=2, ensure_ascii=False) + "\n"


def _job_from(doc: dict[str, Any]) -> EvalJob:
    production = doc.get("production")
    if production is not None:
        production = Production(**{**production, "prefix": Command(**production["prefix"])})
    return EvalJob(
        **{
            **doc,
            "prompts": [EvalPrompt(**p) for p in doc["prompts"]],
            "dims": tuple(doc["dims"]),
            "trainer": Command(**doc["trainer"]),
            "production": production,
        }
    )


def write_job(run_dir: Path, job: EvalJob) -> Path:
    return write_text(Path(run_dir) / JOB_REL, job.to_json(), root=Path(run_dir))


def read_job(run_dir: Path) -> EvalJob:
    path = Path(run_dir) / JOB_REL
    try:
        doc = loads_json(read_bytes(path, what="eval job", limit=JSON_MAX_BYTES), what="eval job")
        if not isinstance(doc, dict):
            raise TypeError("not a JSON object")
        return _job_from(doc)
    except (KeyError, TypeError, ValueError):
        raise UsageError(f"{path} is damaged: start the evaluation again") from None


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
        return json.dumps(asdict(self), indent=2, ensure_ascii=False) + "\n"


def write_state(run_dir: Path, state: EvalState) -> None:
    state = replace(state, updated=time.time())
    write_text(Path(run_dir) / STATE_REL, state.to_json(), root=Path(run_dir))


def read_state(run_dir: Path) -> EvalState | None:
    try:
        doc = loads_json(
            read_bytes(Path(run_dir) / STATE_REL, what="eval state", limit=JSON_MAX_BYTES), what="eval state"
        )
        return EvalState(**doc) if isinstance(doc, dict) else None
    except (UsageError, TypeError, ValueError):
        return None
