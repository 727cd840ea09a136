"""What the trainer will see of a clip: size, rotation, frames, rate, sound; read in-process.

The trainer reads clips with PyAV (ltx_trainer/video_utils.py), so PyAV is asked here too: one
open per clip, no subprocess (an ffprobe process costs ~40x more, almost all of it start-up).
ffprobe (core/dataset/media_probe.py) is only the fallback when PyAV is not installed or cannot
open a file. Facts are kept per (resolved path, size, mtime_ns) (core/dataset/clip_cache.py), so
a clip is read once until it changes.

Frames are counted by the trainer's rule (video_utils.py get_video_frame_count, used by
process_videos.py MediaDataset._filter_valid_videos): the stream's frame count, else duration x
rate rounded, else every frame (its full decode is replaced here by a count of the video
packets, one per frame). `frames_from` says which. Rotation is the display matrix's; the trainer
ignores it (read_video decodes frames as stored), so width and height are the stored ones.
"""

from __future__ import annotations

import os
import stat
import threading
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Literal

from ltx_wizard.core.base.errors import WizardError
from ltx_wizard.core.dataset.clip_facts import IMAGE_SUFFIXES, ClipFacts, image_facts, unread
from ltx_wizard.core.dataset.mp4_rotation import mp4_rotation

if TYPE_CHECKING:  # PyAV is imported lazily (probe_clip), the cache where it is first used
    from av.container import InputContainer
    from av.video.stream import VideoStream

    from ltx_wizard.core.dataset.clip_cache import FactsCache

# What stops a check: an Event, or a callable saying whether to stop; None: nothing stops it
# What stops a check: an Event, or a callable saying whether to stop (None: nothing does)
CancelFlag = threading.Event | Callable[[], bool] | None

__all__ = ["CancelFlag", "ClipFacts", "ProbeCancelled", "is_cancelled", "probe_clip", "probe_clips", "unread"]

VFR_TOLERANCE = 0.01  # average rate and base rate further apart than 1%: variable frame rate
PARALLEL_FROM = 16  # fewer clips than this are read on the calling thread (no pool start-up)
MAX_WORKERS = 8  # PyAV drops the GIL while it opens a file; past ~8 the disk is the limit
TIMESTAMPS_KEPT = 20_000  # packet times kept for the frame-rate check of a counted clip


class ProbeCancelled(WizardError):
    """probe_clips stopped because `cancelled` said so (a newer check replaced this one)."""

    def __init__(self, message: str = "the clip check was cancelled") -> None:
        super().__init__(message)


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:200]


def _regular_file(path: Path) -> str | None:
    """Why `path` is not a file PyAV may open (a FIFO would block the open); None when it is."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        return exc.strerror or type(exc).__name__
    return None if stat.S_ISREG(mode) else "not a regular file"


def probe_clip(path: Path, *, fallback: bool = True) -> ClipFacts:
    """One clip; never raises: an unreadable clip comes back with `error` set. `fallback=False`:
    PyAV's answer only, as the trainer gets it (no ffprobe)."""
    path = Path(path)
    refused = _regular_file(path)
    if refused is not None:
        return unread(path, refused)
    try:
        import av
    except ImportError:
        why = "PyAV (the av package) is not installed"
        return _fallback(path, why, missing_av=True) if fallback else unread(path, why, via="none")
    try:
        container = av.open(str(path), metadata_errors="ignore")
    except Exception as exc:  # noqa: BLE001 - the trainer's filter catches every error alike
        why = _one_line(exc)
        return _fallback(path, why, missing_av=False) if fallback else unread(path, why)
    try:  # opened: what PyAV says about the streams is the trainer's answer, no fallback
        with container:
            return _read(container, path)
    except Exception as exc:  # noqa: BLE001 - a damaged stream: the clip is unread, as above
        return unread(path, _one_line(exc))


def _fallback(path: Path, why: str, *, missing_av: bool) -> ClipFacts:
    """ffprobe's facts when PyAV is missing or cannot open the file; else PyAV's reason (the
    trainer reads with PyAV, so its error is the one that counts)."""
    from ltx_wizard.core.dataset.media_probe import find_ffprobe, probe_with_ffprobe

    ffprobe = find_ffprobe()
    if ffprobe is None:
        if missing_av:
            return unread(path, f"not read: {why} and ffprobe is not on PATH", via="none")
        return unread(path, why)
    facts = probe_with_ffprobe(path, ffprobe)
    return facts if facts.error is None or missing_av else unread(path, why)


def _read(container: InputContainer, path: Path) -> ClipFacts:
    image = path.suffix.lower() in IMAGE_SUFFIXES
    if not container.streams.video:
        # the trainer's container.streams.video[0] raises: the clip is dropped
        return unread(path, "no video stream")
    video = container.streams.video[0]
    audio = container.streams.audio
    width, height = video.codec_context.width or None, video.codec_context.height or None
    if image:
        # the trainer opens it with PIL, which reads the whole picture: decode it too (the
        # header alone reads as an image2 stream of any bytes)
        frame = next(container.decode(video=0))
        return image_facts(path, frame.width, frame.height)
    rate = video.average_rate or video.base_rate
    frames, frames_from = _frames_from_header(video, rate)
    mov = "mov" in str(container.format.name).split(",")
    scan = _scan(container, video, count=frames is None, rotation=not mov)
    if frames is None:
        frames, frames_from = scan.packets, "counted"
    rotation = (mp4_rotation(path) or 0) if mov else scan.rotation
    variable = _spread(scan.times) if scan.times else _rates_differ(video.average_rate, video.base_rate)
    return ClipFacts(
        path=path,
        kind="video",
        width=width,
        height=height,
        rotation=rotation,
        frames=frames,
        fps=float(rate or 24),  # read_video: average, else base, else 24
        variable_fps=variable,
        duration_s=_duration(container, video),
        has_audio=bool(audio),
        audio_codec=(audio[0].codec_context.name if audio else None),
        error=None,
        frames_from=frames_from,
    )


def _frames_from_header(video: VideoStream, rate: Fraction | None) -> tuple[int | None, str | None]:
    # mirrors video_utils.py get_video_frame_count: its first two ways
    if video.frames > 0:
        return int(video.frames), "container"
    if video.duration and video.time_base and rate:
        return round(Fraction(video.duration) * Fraction(video.time_base) * Fraction(rate)), "estimate"
    return None, None


@dataclass
class _Scan:
    packets: int = 0
    rotation: int = 0
    times: list[int] | None = None


def _scan(container: InputContainer, video: VideoStream, *, count: bool, rotation: bool) -> _Scan:
    """Walk the video packets when the frames must be counted (the trainer decodes them all) or
    the rotation is only on a decoded frame (containers other than MP4/MOV)."""
    out = _Scan(times=[] if count else None)
    if not count and not rotation:
        return out
    looking, times = rotation, out.times  # times: a list exactly when counting
    for packet in container.demux(video):
        if packet.size == 0:
            continue  # the demuxer's closing empty packet
        out.packets += 1
        if times is not None and packet.pts is not None and len(times) < TIMESTAMPS_KEPT:
            times.append(packet.pts)
        if looking:
            for frame in packet.decode():
                out.rotation, looking = int(getattr(frame, "rotation", 0) or 0) % 360, False
                break
        if not count and not looking:
            break
    return out


def _spread(times: list[int]) -> bool:
    """Frame durations that differ by more than the tolerance: a variable frame rate."""
    ordered = sorted(times)
    steps = [b - a for a, b in zip(ordered, ordered[1:]) if b > a]
    return bool(steps) and max(steps) > min(steps) * (1 + VFR_TOLERANCE) + 1


def _rates_differ(average: Fraction | None, base: Fraction | None) -> bool:
    if not average or not base:
        return False
    return abs(float(average) - float(base)) > VFR_TOLERANCE * float(base)


def _duration(container: InputContainer, video: VideoStream) -> float | None:
    if video.duration and video.time_base:
        return float(video.duration * video.time_base)
    if container.duration:
        return container.duration / 1_000_000  # AV_TIME_BASE
    return None


def is_cancelled(cancelled: CancelFlag) -> bool:
    if cancelled is None:
        return False
    return bool(cancelled.is_set() if hasattr(cancelled, "is_set") else cancelled())


def probe_clips(
    paths: Iterable[Path],
    *,
    workers: int | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    cancelled: CancelFlag = None,
    cache: FactsCache | Literal[False] | None = None,
) -> list[ClipFacts]:
    """Facts of every path, in order; each distinct file read once, from the cache when it has
    not changed (`cache`: a clip_cache.FactsCache, default the shared one; False: none).
    Read on `workers` threads past PARALLEL_FROM clips; `on_progress(done, total)` about every
    half percent; ProbeCancelled as soon as `cancelled` (an Event or a callable) is set."""
    from ltx_wizard.core.dataset.clip_cache import shared_cache

    paths = [Path(p) for p in paths]
    store = shared_cache() if cache is None else (cache or None)
    found: dict[Path, ClipFacts] = {}
    todo = list(dict.fromkeys(paths))
    if store is not None:
        found, todo = store.lookup(todo)
    total, step = len(todo), max(1, len(todo) // 200)
    fresh: list[ClipFacts] = []

    def done(facts: ClipFacts) -> None:
        fresh.append(facts)
        if on_progress is not None and (len(fresh) % step == 0 or len(fresh) == total):
            on_progress(len(fresh), total)

    try:
        _run(todo, done, workers, cancelled)
    finally:
        if store is not None and fresh:
            store.store(fresh)
    found.update((f.path, f) for f in fresh)
    return [found[p] for p in paths]


def _run(
    todo: list[Path], done: Callable[[ClipFacts], None], workers: int | None, cancelled: CancelFlag
) -> None:
    count = max(1, workers or min(MAX_WORKERS, os.cpu_count() or 1))
    if len(todo) < PARALLEL_FROM:
        for path in todo:
            if is_cancelled(cancelled):
                raise ProbeCancelled()
            done(probe_clip(path))
        return
    queue = iter(todo)
    with ThreadPoolExecutor(max_workers=count, thread_name_prefix="clip-probe") as pool:
        running = {pool.submit(probe_clip, p) for p in _take(queue, count * 2)}
        while running:
            finished, running = wait(running, timeout=0.5, return_when=FIRST_COMPLETED)
            for future in finished:
                done(future.result())
            if is_cancelled(cancelled):
                for future in running:
                    future.cancel()
                raise ProbeCancelled()
            running |= {pool.submit(probe_clip, p) for p in _take(queue, len(finished))}


def _take(queue: Iterator[Path], n: int) -> list[Path]:
    out: list[Path] = []
    for path in queue:
        out.append(path)
        if len(out) >= n:
            break
    return out
