"""Setup failures: a run that died before step 1 for a reason no trial's change can cause.

A missing or unreadable file (a validation medium, a data folder), or a codec the media readers
lack, fails every config alike: recording it as the trial's crash would blame the change and
send the tuner down the wrong path. So autotune stops with the cause, the file and the fix;
every finished trial stays in autotune.log (no summary record is written) and the next run
resumes after them (outputs/results_log.py), running only what had not finished.

What the trainer prints for these, as the last line of its traceback:
- ltx_trainer/validation_runner.py `_encode_conditioning_media` (ValidationRunner.__init__):
  PIL `FileNotFoundError: [Errno 2] No such file or directory: 'X'` or
  `PIL.UnidentifiedImageError: cannot identify image file 'X'`; PyAV (video_utils.read_video)
  `av.error.FileNotFoundError: ...` or `av.error.InvalidDataError: ... processing input: 'X'`;
  torchaudio `RuntimeError: Failed to open the input "X" (...)`; a decoder FFmpeg lacks
  (`DecoderNotFoundError`, `Decoder not found`, `Unknown codec`);
- ltx_trainer/datasets.py PrecomputedDataset: `FileNotFoundError: Required latents directory
  does not exist: X`;
- a full disk anywhere the trainer writes: `OSError: [Errno 28] No space left on device`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.validation.validation_media import media_slots, slot_problems

if TYPE_CHECKING:
    from ltx_wizard.core.autotune.outputs.results_log import ResultsLog
    from ltx_wizard.core.tuning.schedule import Tuner

_QUOTED = re.compile(r"""['"]([^'"]+)['"]""")
_MISSING = ("No such file or directory", "does not exist")
_UNREADABLE = (
    "cannot identify image file",
    "Invalid data found when processing input",
    "Failed to open the input",
)
_CODEC = (
    "DecoderNotFoundError",
    "Decoder not found",
    "Unknown codec",
    "codec not found",
    "Couldn't find appropriate backend",
)
_DENIED = ("Permission denied", "Is a directory")
_NO_SPACE = ("No space left on device", "Disk quota exceeded")  # ENOSPC, EDQUOT: any config
RERUN = "then run autotune again: the finished trials are kept and not run again"


@dataclass(frozen=True)
class SetupFailure:
    cause: str  # the trainer's own exception line
    file: str | None
    where: str | None  # the config key that names the file, when one does
    fix: str

    def message(self, what: str, finished: int) -> str:
        kept = f"{finished} finished trial{'s' if finished != 1 else ''} kept"
        named = f" ({self.where})" if self.where else ""
        return (
            f"{what} failed before step 1 for a reason no trial's change causes: "
            f"{self.cause}. File: {self.file or 'see the cause'}{named}. Fix: {self.fix}; "
            f"{RERUN} ({kept})."
        )


class SetupStopped(Exception):
    def __init__(self, failure: SetupFailure, what: str) -> None:
        super().__init__(failure.cause)
        self.failure, self.what = failure, what


def _file(line: str) -> str | None:
    quoted: list[str] = _QUOTED.findall(line)
    if quoted:
        return quoted[-1]
    after = line.rsplit(": ", 1)
    return after[1].strip() if len(after) == 2 and after[1].strip().startswith("/") else None


def _where(path: str | None, config: Mapping[str, Any]) -> str | None:
    if path is None:
        return None
    slot = next((s for s in media_slots(config) if s.value == path), None)
    return slot.where if slot else None


def classify(line: str | None, config: Mapping[str, Any]) -> SetupFailure | None:
    """The setup failure an exception line states, or None when it is not one."""
    if not line:
        return None
    if any(word in line for word in _NO_SPACE):
        return SetupFailure(
            line,
            None,
            None,
            "free disk space where the run writes (the run "
            "folder's outputs/ and logs/) and the trainer's caches",
        )
    path = _file(line)
    where = _where(path, config)
    place = f"point {where} in config.yaml at a real file" if where else "correct the path"
    if any(word in line for word in _CODEC):
        return SetupFailure(
            line,
            path,
            where,
            "install an FFmpeg build with that codec for PyAV "
            "and torchaudio, or convert the file (H.264 MP4, PNG, WAV)",
        )
    if any(word in line for word in _UNREADABLE):
        return SetupFailure(
            line,
            path,
            where,
            f"replace it with a file its reader opens (PNG or JPEG image, MP4 video, WAV audio), or {place}",
        )
    if any(word in line for word in _MISSING) and ("Error" in line.split(":", 1)[0]):
        return SetupFailure(
            line,
            path,
            where,
            f"put the file there, or {place} (`ltx-wizard plan --validation-media FILE` writes it)",
        )
    if any(word in line for word in _DENIED):
        return SetupFailure(line, path, where, f"make it a readable file, or {place}")
    return None


def require_readable_media(config: Mapping[str, Any], config_path: object) -> None:
    """Refuse before any trial when config.yaml's validation media cannot be read (a placeholder
    never reaches a trial or the confirmation)."""
    problems = slot_problems(config)
    if problems:
        slot, problem = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise UsageError(
            f"{config_path} {slot.where}: {problem}{more}: the trainer reads it before "
            f"step 1; point it at your {slot.kind} file (or re-plan with "
            "--validation-media FILE, or --no-validation-media), then run autotune again"
        )


def raise_on_setup_failure(before_step_one: str | None, config: Mapping[str, Any], what: str) -> None:
    """Stop the sweep (SetupStopped) when a run's exception line before step 1 (the runner's
    `before_step_one`) is a setup failure rather than the trial's own result."""
    failure = classify(before_step_one, config)
    if failure is not None:
        raise SetupStopped(failure, what)


def record_setup_stop(tuner: Tuner, log: ResultsLog, stop: SetupStopped) -> str:
    """A sweep stopped by a setup failure: the tuner's stop reason set, and said in autotune.log as
    a comment only (no summary record), so the next run resumes after the finished trials. The
    engine's summary then has no winner and nothing patched."""
    finished = sum(1 for r in tuner.results if r.ran)
    tuner.stop_reason = stop.failure.message(stop.what, finished)
    log.stopped(tuner.stop_reason)
    return tuner.stop_reason
