"""The run as data: what `plan` decided, written once as `<run>/plan.json` beside run.json.

plan.md, the Summary screen and later commands (autotune, preprocess, status, the Monitor) render
or read this record; none of them parses plan.md. The record holds the user's inputs (the
PlanRequest), the tier, the recipe and its shipped text, the planned config text, the dataset and
its counts, the schedule, the launch and every note, plus the checkpoint facts read at plan time
(autotune's memory model needs them and does not open the checkpoint again).

Written as JSON by hand (plan's path imports no pydantic); read back through pydantic's checks,
which only readers pay for. A record of another version is refused with the fix (plan again).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.records import json_text, record
from ltx_wizard.core.inputs.checkpoint import CheckpointInfo
from ltx_wizard.core.io.bounded import JSON_MAX_BYTES, read_text
from ltx_wizard.core.io.workspace import RunFolder
from ltx_wizard.core.plan.request import PlanRequest

if TYPE_CHECKING:  # pydantic is imported where a record is read
    from pydantic import TypeAdapter

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


def record_path(run_dir: Path) -> Path:
    return RunFolder(Path(run_dir)).plan_record


def record_text(rec: PlanRecord) -> str:
    return json_text(rec)


@cache
def _schema() -> TypeAdapter[PlanRecord]:
    from pydantic import TypeAdapter

    return TypeAdapter(PlanRecord)


def read_record(run_dir: Path) -> PlanRecord | None:
    """None for a run folder planned before plan.json existed; a damaged one is refused."""
    path = record_path(run_dir)
    if not path.is_file():
        return None
    text = read_text(path, what="the plan record", limit=JSON_MAX_BYTES)
    version = _version(text)
    if version != RECORD_VERSION:
        raise UsageError(
            f"{path} is of version {version}, this ltx-wizard reads version "
            f"{RECORD_VERSION}: plan the run again (ltx-wizard plan ... --force)"
        )
    from pydantic import ValidationError

    try:
        return _schema().validate_json(text)
    except ValidationError as exc:
        raise UsageError(f"{path} is damaged ({exc.errors()[0]['msg']}): plan the run again") from None


def _version(text: str) -> Any:
    try:
        data = json.loads(text)
    except ValueError:
        return "unknown"
    return data.get("version", "unknown") if isinstance(data, dict) else "unknown"
