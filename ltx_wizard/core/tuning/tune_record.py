"""What autotune decided, as data: `<run>/autotune.json`, written when autotune ends (a winner, a
cancel that kept the best so far, or no result). plan.md is rendered from it with the plan's own
record (core/plan/plan_md.py); nothing edits plan.md's text.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.io.bounded import JSON_MAX_BYTES, read_text
from ltx_wizard.core.io.safe_fs import write_text
from ltx_wizard.core.io.workspace import RunFolder
from ltx_wizard.core.tuning.duration import Duration
from ltx_wizard.core.tuning.results import AutotuneSummary

RECORD_VERSION = 1


class TuneRecord(BaseModel):
    model_config = ConfigDict(frozen=True)

    version: int = RECORD_VERSION
    summary: AutotuneSummary
    config_text: str  # config.yaml as autotune left it (the planned text when nothing changed)
    steps: tuple[int, int] | None = None  # (planned, rescaled) after an allowed batch change
    effective: tuple[int, int] = (1, 1)  # samples per optimizer step per GPU: planned, tuned
    duration: Duration | None = None  # estimated from the measured trials

    @property
    def changed(self) -> bool:
        """config.yaml carries autotune's changes (a winner, or the best kept on a cancel)."""
        return self.summary.config_patched


def record_path(run_dir: Path) -> Path:
    return RunFolder(Path(run_dir)).autotune_record


def write_tune_record(run_dir: Path, rec: TuneRecord) -> Path:
    return write_text(record_path(run_dir), rec.model_dump_json(indent=2) + "\n", root=run_dir)


def read_tune_record(run_dir: Path) -> TuneRecord | None:
    """None before autotune has ended; a damaged record is refused with the fix."""
    path = record_path(run_dir)
    if not path.is_file():
        return None
    text = read_text(path, what="the autotune record", limit=JSON_MAX_BYTES)
    try:
        rec = TuneRecord.model_validate_json(text)
    except ValidationError as exc:
        raise UsageError(
            f"{path} is damaged ({exc.errors()[0]['msg']}): run `ltx-wizard autotune {Path(run_dir)}` again"
        ) from None
    if rec.version != RECORD_VERSION:
        raise UsageError(f"{path} is of version {rec.version}; run autotune again")
    return rec
