"""What autotune decided, as data: `<run>/autotune.json`, written when autotune ends (a winner, a
cancel that kept the best so far, or no result). plan.md is rendered from it with the plan's own
record (core/plan/plan_md.py); nothing edits plan.md's text.

The file is declared once in the run folder's codec (core/io/run_codec.py): a msgspec Struct,
strict, unknown fields refused at every depth. The summary inside stays the pydantic model the
engine's live events carry (core/tuning/results.py), checked strictly through its own schema.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from ltx_wizard.core.io import run_folder
from ltx_wizard.core.io.run_codec import declare
from ltx_wizard.core.tuning.duration import Duration
from ltx_wizard.core.tuning.results import AutotuneSummary

RECORD_VERSION = 1


class TuneRecord(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
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


RECORD_FILE = declare(run_folder.AUTOTUNE_RECORD, TuneRecord, version=RECORD_VERSION)


def record_path(run_dir: Path) -> Path:
    return run_folder.AUTOTUNE_RECORD.path(run_dir)


def write_tune_record(run_dir: Path, rec: TuneRecord) -> Path:
    return RECORD_FILE.write(run_dir, rec)


def read_tune_record(run_dir: Path) -> TuneRecord | None:
    """None before autotune has ended; a damaged record is refused with the fix."""
    return RECORD_FILE.read(run_dir)
