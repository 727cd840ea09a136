"""What the line parser finds in the trainer's output (line_parser.py), one model per kind.

Each carries `t`, the arrival time of the first physical line it was parsed from, and the rank
that printed it when the line says so.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class TrainerEvent(BaseModel):
    model_config = ConfigDict(frozen=True)

    t: float


class StepEvent(TrainerEvent):
    step: int
    total: int
    loss: float  # may be nan
    lr: float
    time_per_step_s: float
    rank: int | None = None
    total_time: str = ""  # the line's `Total Time` as printed ("0h 5m", "calculating...")


class ValidationSaved(TrainerEvent):
    step: int
    rank: int | None = None


class CheckpointSaved(TrainerEvent):
    step: int
    path: str
    rank: int | None = None


class Statistics(TrainerEvent):
    total_time_min: float
    steps_per_s: float
    samples_per_s: float
    peak_gpu_memory_gb: float  # GiB: nvidia-smi MiB / 1024, though the trainer prints "GB"
    num_processes: int | None = None
    global_batch: int | None = None


class OomError(TrainerEvent):
    line: str
    rank: int | None = None


class NanLoss(TrainerEvent):
    step: int
    rank: int | None = None


class ConfigError(TrainerEvent):
    text: str


class StopIterationError(TrainerEvent):
    line: str
    rank: int | None = None


class Traceback(TrainerEvent):
    first_line: str
    last_line: str
    rank: int | None = None


class TrainerPhase(TrainerEvent):
    """A log line that starts a long stage: loading, quantizing, training (stages.py)."""

    phase: str
    rank: int | None = None


class MissingConfig(TrainerEvent):
    path: str
