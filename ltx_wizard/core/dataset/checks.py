"""A dataset file checked before anything heavy: columns for the recipe, every media file, and
each clip's frames, size and sound against the resolution buckets.

What the trainer would do with each clip is mirrored, not guessed: process_videos.py
MediaDataset._load_video_paths refuses the run when any path is not a file, _filter_valid_videos
drops (with a log line only) a clip shorter than the smallest bucket or one it cannot read, and
compute_latents' auto-extracted audio silently skips a clip without an audio stream, so under an
audio recipe that sample lacks audio_latents/ and the trainer leaves it out.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Mapping

from ltx_wizard.core.base.records import record
from ltx_wizard.core.dataset.buckets import Bucket, buckets_text, frame_cap, min_frames
from ltx_wizard.core.dataset.sources import audio_folder
from ltx_wizard.core.dataset.data_root import VideoOnlyData
from ltx_wizard.core.dataset.rows import MEDIA_ROLES, DatasetFile, required_roles
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.dataset.media_probe import MediaInfo, probe_media

MAX_PROBED = 500  # the skill probes clip lengths for "up to a few hundred clips" only
Prober = Callable[[Path], MediaInfo]


@record
class DatasetReport:
    dataset: Path
    rows: int
    buckets: str
    kept: tuple[str, ...]  # the output .pt name of each row the trainer keeps, in file order
    dropped: tuple[tuple[str, str], ...] = ()  # (clip as written in the file, why)
    silent: tuple[str, ...] = ()  # clips without sound under a recipe that trains audio
    silent_samples: tuple[str, ...] = ()  # their .pt names: no audio latents will be written
    shortest: tuple[str, int] | None = None  # (clip, frames)
    frame_cap: int | None = None  # the most frames a bucket can have for every clip to stay
    not_checked: str = ""  # what could not be checked (no ffprobe, too many clips)
    warnings: tuple[str, ...] = ()

    def describe(self) -> str:
        text = f"{len(self.kept)} of {self.rows} clips usable at {self.buckets}"
        if self.shortest is not None:
            text += (f"; shortest {self.shortest[0]} ({self.shortest[1]} frames: buckets up to "
                     f"{self.frame_cap} frames keep every clip)")
        if self.not_checked:
            text += f"; not checked: {self.not_checked}"
        return text


def check_dataset(ds: DatasetFile, strategy: Mapping[str, Any] | None,
                  buckets: tuple[Bucket, ...], *, ffprobe: str | None,
                  prober: Prober | None = None) -> DatasetReport:
    """Raise one UsageError naming the file and the fix; else what the trainer will keep."""
    _require_columns(ds, strategy)
    _require_files(ds)
    audio = audio_folder(strategy) is not None and "audio" not in ds.roles
    if ffprobe is None and prober is None:
        return DatasetReport(dataset=ds.path, rows=len(ds.rows), buckets=buckets_text(buckets),
                             kept=tuple(ds.output_rel(r) for r in ds.rows),
                             not_checked="frame counts, sizes and audio streams (ffprobe is not "
                             "installed: apt install ffmpeg to check them)")
    probe = prober or (lambda p: probe_media(p, ffprobe))  # type: ignore[arg-type]
    rows = ds.rows[:MAX_PROBED]
    infos = [probe(ds.media(r, "video")) for r in rows]
    report = _judge(ds, rows, infos, buckets, audio)
    if len(ds.rows) > MAX_PROBED:
        extra = ds.rows[MAX_PROBED:]
        report = replace(report, **{
            "kept": report.kept + tuple(ds.output_rel(r) for r in extra),
            "not_checked": f"frames, size and sound of {len(extra)} clips after the first "
                           f"{MAX_PROBED} (too many to probe one by one)"})
    _require_usable(ds, report, buckets, audio)
    return report


def _require_columns(ds: DatasetFile, strategy: Mapping[str, Any] | None) -> None:
    if not ds.rows:
        raise UsageError(f"dataset file {ds.path} has no entries: add one per clip "
                         "(caption and video)")
    shown = ", ".join(ds.columns) or "none"
    for role in required_roles(strategy):
        if role not in ds.roles:
            alias = " (or media_path)" if role == "video" else ""
            raise UsageError(f"dataset file {ds.path} has no {role} column{alias}, which this "
                             f"recipe needs (its columns: {shown}): add it")
    for number, row in enumerate(ds.rows, start=1):
        lacking = [c for c in ds.roles.values() if c not in row]
        if lacking:
            raise UsageError(f"dataset file {ds.path}: entry {number} has no {lacking[0]!r} "
                             "(the trainer stops on it): give every entry the same columns")


def _require_files(ds: DatasetFile) -> None:
    # mirrors process_videos.py MediaDataset._load_video_paths: any missing path stops the run
    for role in MEDIA_ROLES:
        if role not in ds.roles:
            continue
        bad = [(n, ds.media(r, role)) for n, r in enumerate(ds.rows, start=1)
               if not _readable_file(ds.media(r, role))]
        if bad:
            number, path = bad[0]
            raise UsageError(
                f"dataset file {ds.path}: {len(bad)} {ds.roles[role]} file(s) missing or "
                f"unreadable (first: {path}, entry {number}): fix the paths (relative to "
                f"{ds.folder}) or the file permissions")


def _readable_file(path: Path) -> bool:
    return path.is_file() and os.access(path, os.R_OK)


def _judge(ds: DatasetFile, rows, infos: list[MediaInfo], buckets: tuple[Bucket, ...],
           audio: bool) -> DatasetReport:
    need = min_frames(buckets)
    kept, dropped, silent, counted, small = [], [], [], [], []
    for row, info in zip(rows, infos):
        clip = row[ds.roles["video"]].strip()
        if info.error is not None or info.frames is None:
            dropped.append((clip, f"unreadable ({info.error or 'frames not counted'})"))
            continue
        counted.append((clip, info.frames))
        if info.frames < need:
            dropped.append((clip, f"{info.frames} frames, fewer than the bucket's {need}"))
            continue
        kept.append(ds.output_rel(row))
        if audio and not info.has_audio:
            silent.append((clip, ds.output_rel(row)))
        if info.width and info.height and all(info.width < b.width or info.height < b.height
                                              for b in buckets):
            small.append(f"{clip} ({info.width}x{info.height})")
    shortest = min(counted, key=lambda c: c[1]) if counted else None
    warnings = _warnings(dropped, [c for c, _ in silent], small)
    return DatasetReport(dataset=ds.path, rows=len(ds.rows), buckets=buckets_text(buckets),
                         kept=tuple(kept), dropped=tuple(dropped),
                         silent=tuple(c for c, _ in silent),
                         silent_samples=tuple(s for _, s in silent),
                         shortest=shortest, frame_cap=frame_cap(shortest[1]) if shortest else None,
                         warnings=tuple(warnings))


def _warnings(dropped, silent, small) -> list[str]:
    out = []
    if dropped:
        named = "; ".join(f"{c}: {why}" for c, why in dropped[:5])
        more = f" (and {len(dropped) - 5} more)" if len(dropped) > 5 else ""
        out.append(f"the trainer drops {len(dropped)} clip(s): {named}{more}")
    if silent:
        more = f" (and {len(silent) - 5} more)" if len(silent) > 5 else ""
        out.append(f"{len(silent)} clip(s) have no audio stream, so they get no audio latents "
                   f"and the trainer leaves them out: {', '.join(silent[:5])}{more}")
    if small:
        out.append(f"{len(small)} clip(s) are smaller than every bucket and will be upscaled: "
                   f"{', '.join(small[:3])}")
    return out


def _require_usable(ds: DatasetFile, report: DatasetReport, buckets: tuple[Bucket, ...],
                    audio: bool) -> None:
    if not report.kept:
        if report.frame_cap is not None:
            b = max(buckets, key=lambda x: x.frames)
            cap = report.frame_cap
            raise UsageError(
                f"dataset file {ds.path}: every clip is shorter than the bucket's "
                f"{min_frames(buckets)} frames (shortest {report.shortest[0]}, "  # type: ignore[index]
                f"{report.shortest[1]} frames): use at most {cap} frames, e.g. "  # type: ignore[index]
                f"--resolution-buckets {b.width}x{b.height}x{cap}")
        raise UsageError(f"dataset file {ds.path}: no clip could be read "
                         f"({report.dropped[0][0]}: {report.dropped[0][1]}): check the files")
    if audio and len(report.silent) == len(report.kept):
        raise VideoOnlyData(f"dataset file {ds.path}: no clip has an audio stream, but the recipe "
                         "trains audio: train video only (--video-only, or the Video only box), "
                         "or use clips with sound", "audio_latents")


def check_dataset_file(path, strategy: Mapping[str, Any] | None, buckets: str | None, *,
                       cwd=None, env: Mapping[str, str] | None = None) -> DatasetReport:
    """Read and check a dataset file as `check` and the Paths screen do (no output folder)."""
    from ltx_wizard.core.dataset.buckets import DEFAULT_BUCKETS, parse_buckets
    from ltx_wizard.core.dataset.rows import read_dataset_file
    from ltx_wizard.core.dataset.media_probe import find_ffprobe

    ds = read_dataset_file(path, cwd=cwd)
    ffprobe = find_ffprobe(dict(os.environ if env is None else env))
    return check_dataset(ds, strategy, parse_buckets(buckets or DEFAULT_BUCKETS), ffprobe=ffprobe)
