"""The run as data: what `plan` decided, written once as `<run>/plan.json` beside run.json.

plan.md, the Summary screen and later commands (autotune, preprocess, status, the Monitor) render
or read this record; none of them parses plan.md. The record holds the user's inputs (the
PlanRequest), the tier, the recipe and its shipped text, the planned config text, the dataset and
its counts, the schedule, the launch and every note, plus the checkpoint facts read at plan time
(autotune's memory model needs them and does not open the checkpoint again).

Declared once in the run folder's codec (core/io/run_codec.py: msgspec, strict, unknown fields
refused, a few ms to import: plan's path imports no pydantic). A record of another version is
refused with the fix (plan again).
"""

from __future__ import annotations

from pathlib import Path

from ltx_wizard.core.base.records import record
from ltx_wizard.core.inputs.checkpoint import CheckpointInfo
from ltx_wizard.core.io import run_folder
from ltx_wizard.core.io.run_codec import declare
from ltx_wizard.core.plan.checkpoint_keep import CheckpointKeep
from ltx_wizard.core.plan.plan_request import PlanRequest

RECORD_VERSION = 1


@record
class DataRecord:
    """The data the run trains on, and how many samples the trainer will train on."""

    root: Path  # data.preprocessed_data_root in config.yaml
    name: str  # the dataset's name (plan.md's goal)
    folders: tuple[str, ...]  # the folders the config reads, in the trainer's order
    samples: int  # what the trainer will train on: preprocessed samples, or usable clips
    source: Path | None = None  # the dataset file, when planned from clips
    listed: int | None = None  # its rows
    bucket: str | None = None  # the preprocessing bucket(s)
    reused: bool = False  # an existing .precomputed verified complete at plan time
    clip_lines: tuple[str, ...] = ()  # each clip problem as the trainer handles it
    unchecked: str = ""  # what could not be checked (no probe, too many clips)

    @property
    def from_clips(self) -> bool:
        return self.source is not None


@record
class Schedule:
    steps: int | None  # optimization.steps as planned (None: absent or not a number)
    batch_size: int
    accumulation: int
    effective_batch: int  # batch x accumulation x every GPU
    num_gpus: int  # in all, over every node
    nodes: int = 1


@record
class PlanRecord:
    version: int = RECORD_VERSION
    run_name: str
    run_dir: Path
    request: PlanRequest  # the user's inputs, as given
    tier: str  # core/gpu/tiers.py Tier value
    per_gpu_vram_gb: int | None
    gpu_lines: tuple[str, ...]
    recipe: str
    recipe_modes: str = ""
    run_mode: str = "t2v"
    training_mode: str = "lora"
    base_config: str  # the shipped file's name
    base_path: Path
    base_text: str  # the shipped file as read at plan time: every diff is against it
    config_text: str  # config.yaml as plan wrote it
    applied: tuple[str, ...] = ()  # low-VRAM keys applied to a recipe without a twin
    skipped: tuple[str, ...] = ()
    data: DataRecord
    schedule: Schedule
    launch_line: str  # what launch.sh runs (or sbatch for several nodes)
    launch_style: str
    multinode_lines: tuple[str, ...] = ()
    host_lines: tuple[str, ...] = ()
    video_only_note: str | None = None
    assumptions: tuple[str, ...] = ()
    risks: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    checkpoint: CheckpointInfo | None = None
    simulate: str | None = None  # the GPUs were a named machine's (--simulate/--demo)
    written: tuple[str, ...] = ()  # the files write_plan writes into the run folder (run_files.py)
    keep: CheckpointKeep | None = None  # the checkpoints kept for comparison (checkpoint_keep.py)


RECORD_FILE = declare(run_folder.PLAN_RECORD, PlanRecord, version=RECORD_VERSION)


def record_path(run_dir: Path) -> Path:
    return run_folder.PLAN_RECORD.path(run_dir)


def record_text(rec: PlanRecord) -> str:
    return RECORD_FILE.encode(rec)


def read_record(run_dir: Path) -> PlanRecord | None:
    """None for a run folder planned before plan.json existed; a damaged one is refused."""
    return RECORD_FILE.read(run_dir)
