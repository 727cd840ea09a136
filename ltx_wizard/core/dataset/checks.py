"""A dataset file checked before anything heavy: columns for the recipe, every media file, and
each clip as the trainer's preprocessing will take it (core/dataset/clip_problems.py), counted
once into the record every view reads (core/dataset/dataset_facts.py).

What the trainer would do is mirrored, not guessed: process_videos.py
MediaDataset._load_video_paths refuses the run when any path is not a file, _filter_valid_videos
drops (with a log line only) a clip shorter than the smallest bucket or one it cannot read, and
compute_latents' auto-extracted audio silently skips a clip without an audio stream, so under an
audio recipe that sample lacks audio_latents/ and the trainer leaves it out.

Clips are read in-process (core/dataset/clip_probe.py), every one up to READ_ALL_MAX; past it,
READ_ALL_MAX clips spread evenly over the file, and the facts say so.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Mapping

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.dataset.buckets import Bucket, buckets_text, frame_cap, min_frames
from ltx_wizard.core.dataset.clip_facts import ClipFacts
from ltx_wizard.core.dataset.clip_probe import CancelFlag, ProbeCancelled, is_cancelled, probe_clips
from ltx_wizard.core.dataset.clip_problems import DROPPED, STOPS, ClipProblem, judge_clip
from ltx_wizard.core.dataset.data_root import VideoOnlyData
from ltx_wizard.core.dataset.dataset_facts import DatasetFacts
from ltx_wizard.core.dataset.rows import MEDIA_ROLES, DatasetFile, required_roles
from ltx_wizard.core.dataset.sources import audio_folder

# Every clip is read up to this many: at PyAV's 0.5-5 ms a clip (HD H.264), spread over the
# reader's threads, that is seconds of work, and nothing again while the clips stay unchanged
# (clip_cache). Past it a spread-out sample of this size is read (a 1M-clip file in seconds).
READ_ALL_MAX = 10_000
FILES_STEP = 20_000  # at most this many rows between progress reports (and cancel checks)
Progress = Callable[[str, int, int], None]  # (what is being done, done, total)

DatasetReport = DatasetFacts  # its former name (core/preprocess/dataset_planning.py, core/plan/run_plan.py)


def check_dataset(
    ds: DatasetFile,
    strategy: Mapping[str, Any] | None,
    buckets: tuple[Bucket, ...],
    *,
    on_progress: Progress | None = None,
    cancelled: CancelFlag = None,
) -> DatasetFacts:
    """Raise one UsageError naming the file and the fix; else the clips as the trainer will use
    them. `cancelled` (an Event or a callable) stops it with ProbeCancelled."""
    _require_columns(ds, strategy)
    _require_files(ds, on_progress, cancelled)
    audio = audio_folder(strategy) is not None and "audio" not in ds.roles
    picked = _picked(len(ds.rows))
    paths = [ds.media(ds.rows[i], "video") for i in picked]
    clips = probe_clips(
        paths,
        cancelled=cancelled,
        on_progress=None
        if on_progress is None
        else lambda done, total: on_progress("reading clips", done, total),
    )
    if any(f.via == "none" for f in clips):
        return _unchecked(ds, buckets, audio, clips[0].error or "no reader")
    facts = _judge(ds, dict(zip(picked, clips)), buckets, audio)
    _require_runnable(ds, facts)
    _require_usable(ds, facts, buckets, audio)
    return facts


def _picked(rows: int) -> list[int]:
    if rows <= READ_ALL_MAX:
        return list(range(rows))
    return sorted({i * rows // READ_ALL_MAX for i in range(READ_ALL_MAX)})


def _unchecked(ds: DatasetFile, buckets: tuple[Bucket, ...], audio: bool, why: str) -> DatasetFacts:
    return DatasetFacts(
        dataset=ds.path,
        rows=len(ds.rows),
        buckets=buckets_text(buckets),
        trains_audio=audio,
        kept=tuple(_output_names(ds)),
        not_checked=(
            f"frames, sizes and sound of the {len(ds.rows)} clips ({why}: pip install av, "
            "or apt install ffmpeg), so the clips the trainer would skip, crop or leave "
            "out of audio training are not known"
        ),
    )


def _require_columns(ds: DatasetFile, strategy: Mapping[str, Any] | None) -> None:
    if not ds.rows:
        raise UsageError(f"dataset file {ds.path} has no entries: add one per clip (caption and video)")
    shown = ", ".join(ds.columns) or "none"
    for role in required_roles(strategy):
        if role not in ds.roles:
            alias = " (or media_path)" if role == "video" else ""
            raise UsageError(
                f"dataset file {ds.path} has no {role} column{alias}, which this "
                f"recipe needs (its columns: {shown}): add it"
            )
    wanted = list(ds.roles.values())
    for number, row in enumerate(ds.rows, start=1):
        if len(row) < len(wanted) or any(c not in row for c in wanted):
            lacking = [c for c in wanted if c not in row]
            raise UsageError(
                f"dataset file {ds.path}: entry {number} has no {lacking[0]!r} "
                "(the trainer stops on it): give every entry the same columns"
            )


def _require_files(ds: DatasetFile, on_progress: Progress | None, cancelled: CancelFlag) -> None:
    # mirrors process_videos.py MediaDataset._load_video_paths: any missing path stops the run
    roles = [r for r in MEDIA_ROLES if r in ds.roles]
    total, folder = len(ds.rows) * len(roles), os.fspath(ds.folder)
    done, step = 0, max(1, min(FILES_STEP, total // 200))
    for role in roles:
        column, first, bad = ds.roles[role], None, 0
        for number, row in enumerate(ds.rows, start=1):
            if done % step == 0:
                _report(on_progress, cancelled, "looking at the media files", done, total)
            done += 1
            path = os.path.join(folder, str(row[column]).strip())
            if not (os.path.isfile(path) and os.access(path, os.R_OK)):
                bad += 1
                first = first or (number, path)
        _report(on_progress, cancelled, "looking at the media files", done, total)
        if first is not None:  # set with the first of `bad` files
            raise UsageError(
                f"dataset file {ds.path}: {bad} {column} file(s) missing or unreadable (first: "
                f"{first[1]}, entry {first[0]}): fix the paths (relative to {ds.folder}) or the "
                "file permissions"
            )


def _output_names(ds: DatasetFile) -> list[str]:
    """ds.output_rel of every row, without pathlib for plain relative paths ("videos/a.mp4"):
    a 1M-row file costs ~1 s instead of ~15 s. Anything else (absolute, "..", ".", doubled or
    back slashes, no file name) goes through ds.output_rel itself."""
    column = ds.roles["video" if "video" in ds.roles else "audio"]
    out = []
    for row in ds.rows:
        value = str(row[column]).strip()
        parts = value.split("/")
        if (
            not value
            or value.startswith("/")
            or "\\" in value
            or "" in parts
            or "." in parts
            or ".." in parts
        ):
            out.append(ds.output_rel(row))
            continue
        name = parts[-1]
        dot = name.rfind(".")  # pathlib's suffix: a dot past the first character, not last
        stem = name[:dot] if 0 < dot < len(name) - 1 else name
        out.append(value[: len(value) - len(name)] + stem + ".pt")
    return out


def _report(on_progress: Progress | None, cancelled: CancelFlag, what: str, done: int, total: int) -> None:
    if is_cancelled(cancelled):
        raise ProbeCancelled()
    if on_progress is not None:
        on_progress(what, done, total)


def _judge(
    ds: DatasetFile, read: dict[int, ClipFacts], buckets: tuple[Bucket, ...], audio: bool
) -> DatasetFacts:
    kept, dropped, silent, counted, problems = [], [], [], [], []
    video, names = ds.roles["video"], _output_names(ds)
    for index, row in enumerate(ds.rows):
        facts = read.get(index)
        if facts is None:  # not read (past READ_ALL_MAX): counted as kept
            kept.append(names[index])
            continue
        clip = row[video].strip()
        fate, found = judge_clip(clip, facts, buckets)
        problems += found
        if facts.kind == "video" and facts.frames is not None:
            counted.append((clip, facts.frames))
        if fate in (DROPPED, STOPS):
            dropped += [(clip, p.why) for p in found if p.fate == fate]
            continue
        kept.append(names[index])
        if audio and not facts.has_audio:
            silent.append((clip, kept[-1]))
            problems.append(
                ClipProblem(
                    clip,
                    "no audio",
                    "left out",
                    "no audio stream",
                    "no audio latents, so the trainer leaves it out",
                )
            )
    shortest = min(counted, key=lambda c: c[1]) if counted else None
    sampled = len(read) < len(ds.rows)
    return DatasetFacts(
        dataset=ds.path,
        rows=len(ds.rows),
        buckets=buckets_text(buckets),
        trains_audio=audio,
        kept=tuple(kept),
        silent=tuple(c for c, _ in silent),
        silent_samples=tuple(s for _, s in silent),
        dropped=tuple(dropped),
        problems=tuple(problems),
        read=len(read),
        sampled=sampled,
        shortest=shortest,
        frame_cap=frame_cap(shortest[1]) if shortest else None,
        not_checked=(
            f"{len(ds.rows) - len(read)} of the {len(ds.rows)} clips were not read "
            f"(past {READ_ALL_MAX} clips, {len(read)} spread over the file are read and "
            "the rest counted as usable)"
        )
        if sampled
        else "",
    )


def _require_runnable(ds: DatasetFile, facts: DatasetFacts) -> None:
    stops = [p for p in facts.problems if p.fate == "stops"]
    if stops:
        first = stops[0]
        fix = (
            "add a bucket of 1 frame for stills (e.g. --resolution-buckets "
            f"{facts.buckets.split(';')[0].rsplit('x', 1)[0]}x1;{facts.buckets}) or take the "
            "images out"
            if first.kind == "still"
            else "replace or take out that file"
        )
        raise UsageError(
            f"dataset file {ds.path}: {len(stops)} entry(ies) the trainer's "
            f"preprocessing stops on (first: {first.clip}: {first.why}): {fix}"
        )


def _require_usable(ds: DatasetFile, facts: DatasetFacts, buckets: tuple[Bucket, ...], audio: bool) -> None:
    if not facts.kept:
        if facts.shortest is not None and facts.frame_cap is not None:
            b = max(buckets, key=lambda x: x.frames)
            raise UsageError(
                f"dataset file {ds.path}: every clip is shorter than the bucket's "
                f"{min_frames(buckets)} frames (shortest {facts.shortest[0]}, "
                f"{facts.shortest[1]} frames): use at most {facts.frame_cap} frames, e.g. "
                f"--resolution-buckets {b.width}x{b.height}x{facts.frame_cap}"
            )
        raise UsageError(
            f"dataset file {ds.path}: no clip could be read "
            f"({facts.dropped[0][0]}: {facts.dropped[0][1]}): check the files"
        )
    if audio and not facts.usable and not facts.sampled:
        raise VideoOnlyData(
            f"dataset file {ds.path}: no clip has an audio stream, but the recipe "
            "trains audio: train video only (--video-only, or the Video only box), "
            "or use clips with sound",
            "audio_latents",
        )


def check_dataset_file(
    path: str | os.PathLike[str],
    strategy: Mapping[str, Any] | None,
    buckets: str | None,
    *,
    cwd: str | os.PathLike[str] | None = None,
    on_progress: Progress | None = None,
    cancelled: CancelFlag = None,
) -> DatasetFacts:
    """Read and check a dataset file as `check` and the Paths screen do (no output folder).
    `cancelled`: an Event (or a callable) a newer check sets; ProbeCancelled is raised then.
    Clips already read and unchanged are not read again (clip_cache)."""
    from ltx_wizard.core.dataset.buckets import DEFAULT_BUCKETS, parse_buckets
    from ltx_wizard.core.dataset.rows import read_dataset_file

    ds = read_dataset_file(path, cwd=cwd)
    return check_dataset(
        ds, strategy, parse_buckets(buckets or DEFAULT_BUCKETS), on_progress=on_progress, cancelled=cancelled
    )
