"""The clip audit: every staged clip read in-process with PyAV as the trainer reads it
(core/dataset/clip_probe.py, parallel, with progress and cancel), then judged by the trainer's
rules, each finding with its fix. What is judged:

- unreadable, or shorter than the bucket: dropped by process_videos.py _filter_valid_videos;
- rotation: read_video decodes frames as stored, so a rotated phone clip trains sideways;
- variable frame rate: read_video times every frame at the average rate;
- no audio stream, under a recipe that trains audio: no audio latents, so the trainer leaves the
  sample out;
- a still the preprocessor takes (.png .jpg .jpeg) needs a 1-frame bucket;
- the share of each frame the bucket keeps after the trainer's centre crop, and enlarging.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Callable

from ltx_wizard.core.base.records import record
from ltx_wizard.core.dataset.buckets import Bucket, buckets_text, min_frames, parse_buckets
from ltx_wizard.core.dataset.clip_facts import ClipFacts
from ltx_wizard.core.prepare.bucket_choice import kept_share, nearest_bucket, suggest, upscale

LOW_SHARE = 0.7  # a crop keeping less than this of the frame is named
LONG_CLIP_S = 10.0  # a video this long is a candidate for the scene split


@record
class Finding:
    clip: str  # its path under dataset/
    kind: str  # unreadable | short | rotated | vfr | silent | crop | small | image
    text: str  # what the trainer would do, and the fix


@record
class AuditReport:
    total: int
    videos: int
    images: int
    bucket: str  # the suggested bucket(s)
    bucket_why: str
    findings: tuple[Finding, ...] = ()
    rotated: tuple[tuple[str, int], ...] = ()  # (clip, counter-clockwise degrees)
    silent: tuple[str, ...] = ()
    dropped: tuple[tuple[str, str], ...] = ()  # (clip, why): unreadable or too short
    long: tuple[str, ...] = ()  # videos of LONG_CLIP_S or more (scene split candidates)
    with_audio: tuple[str, ...] = ()
    summary: tuple[str, ...] = ()  # the audit's lines, as shown

    def of(self, kind: str) -> list[Finding]:
        return [f for f in self.findings if f.kind == kind]


def audit(facts: list[tuple[str, ClipFacts]], *, buckets: str | None, audio_trained: bool,
          recipe: str = "this recipe") -> AuditReport:
    """Judge each (clip, facts); `buckets`: the bucket to judge against (None: the one
    suggested from the clips themselves)."""
    readable = [(c, f) for c, f in facts if f.readable]
    videos = [(c, f) for c, f in readable if f.kind == "video"]
    images = [(c, f) for c, f in readable if f.kind == "image"]
    sizes = [_as_decoded(f) for _, f in videos if f.width and f.height]
    suggested, why = suggest(sizes, [f.frames for _, f in videos if f.frames], len(images))
    chosen = parse_buckets(buckets or suggested)
    findings: list[Finding] = []
    for clip, info in facts:
        findings += _judge(clip, info, chosen, audio_trained, recipe)
    dropped = tuple((f.clip, f.text) for f in findings if f.kind in ("unreadable", "short"))
    out = AuditReport(
        total=len(facts), videos=len(videos), images=len(images), bucket=suggested,
        bucket_why=why, findings=tuple(findings),
        rotated=tuple((c, f.rotation) for c, f in videos if f.rotation),
        silent=tuple(f.clip for f in findings if f.kind == "silent"), dropped=dropped,
        long=tuple(c for c, f in videos if (f.duration_s or 0) >= LONG_CLIP_S),
        with_audio=tuple(c for c, f in videos if f.has_audio))
    return _with_summary(out, videos, chosen)


def _as_decoded(info: ClipFacts) -> tuple[int, int]:
    return info.width or 0, info.height or 0  # stored: the trainer ignores the rotation


def _judge(clip: str, info: ClipFacts, buckets: tuple[Bucket, ...], audio_trained: bool,
           recipe: str) -> list[Finding]:
    if not info.readable:
        return [Finding(clip=clip, kind="unreadable",
                        text=f"cannot be read ({info.error}): the trainer drops it; left out")]
    if info.kind == "image":
        return _judge_image(clip, info, buckets)
    out = []
    need = min_frames(buckets)
    if info.frames is not None and info.frames < need:
        return [Finding(clip=clip, kind="short", text=f"{info.frames} frames, fewer than the "
                        f"bucket's {need}: the trainer drops it; left out")]
    if info.rotation:
        turned = "sideways" if info.rotation in (90, 270) else "upside down"
        out.append(Finding(clip=clip, kind="rotated", text=(
            f"rotated {info.rotation}° (display matrix): the trainer's PyAV decode ignores it, so "
            f"it would train {turned}; fix: an upright copy in the run folder (the original is "
            "untouched)")))
    if info.variable_fps:
        out.append(Finding(clip=clip, kind="vfr", text=(
            f"variable frame rate ({info.fps:.3g} fps on average): the trainer times every frame "
            "and trims the sound at the average rate, so they can drift; fix: re-encode it at a "
            "constant rate (ffmpeg -i IN -fps_mode cfr OUT.mp4)")))
    if audio_trained and not info.has_audio:
        out.append(Finding(clip=clip, kind="silent", text=(
            f"no audio stream: {recipe} trains sound, so this sample gets no audio latents and "
            "the trainer leaves it out; fix: give it a sound track, or train video only "
            "(plan --video-only, or the Video only box)")))
    out += _judge_frame(clip, info, buckets)
    return out


def _judge_image(clip: str, info: ClipFacts, buckets: tuple[Bucket, ...]) -> list[Finding]:
    if not any(b.frames == 1 for b in buckets):
        return [Finding(clip=clip, kind="image", text=(
            "a still: the preprocessor needs a 1-frame bucket for it (WxHx1 beside the video "
            "bucket), else it stops with 'No resolution buckets have <= 1 frames'"))]
    return _judge_frame(clip, info, buckets)


def _judge_frame(clip: str, info: ClipFacts, buckets: tuple[Bucket, ...]) -> list[Finding]:
    if not info.width or not info.height:
        return []
    bucket = nearest_bucket(buckets, info.frames or 1, info.width, info.height)
    if bucket is None:
        return []
    out = []
    share = kept_share(info.width, info.height, bucket)
    if share < LOW_SHARE:
        out.append(Finding(clip=clip, kind="crop", text=(
            f"{info.width}x{info.height} into {bucket.width}x{bucket.height}: the centre crop "
            f"keeps {share:.0%} of each frame")))
    grow = upscale(info.width, info.height, bucket)
    if grow > 1.0:
        out.append(Finding(clip=clip, kind="small", text=(
            f"{info.width}x{info.height} is enlarged {grow:.1f}x to cover "
            f"{bucket.width}x{bucket.height}")))
    return out


def _with_summary(report: AuditReport, videos, buckets: tuple[Bucket, ...]) -> AuditReport:
    lines = [f"{report.total} clip(s): {report.videos} video(s), {report.images} still(s)"
             + (f", {len(report.dropped)} left out" if report.dropped else "")]
    frames = [(c, f.frames) for c, f in videos if f.frames]
    if frames:
        shortest = min(frames, key=lambda x: x[1])
        rates = [f.fps for _, f in videos if f.fps]
        vfr = sum(f.variable_fps for _, f in videos)
        lines.append(f"frames {shortest[1]}–{max(n for _, n in frames)} (shortest {shortest[0]})"
                     + (_rates(rates) if rates else "")
                     + (f", {vfr} variable" if vfr else ""))
    shares = [(c, kept_share(f.width, f.height, b)) for c, f in videos if f.width and f.height
              for b in [nearest_bucket(buckets, f.frames or 1, f.width, f.height)] if b]
    if shares:
        low = min(shares, key=lambda x: x[1])
        lines.append(f"{buckets_text(buckets)} keeps {statistics.median(s for _, s in shares):.0%}"
                     f" of each frame (median; least {low[1]:.0%}, {low[0]})")
    lines.append(f"sound: {len(report.with_audio)} with an audio stream, "
                 f"{report.videos - len(report.with_audio)} without")
    lines.append(f"suggested bucket {report.bucket}: {report.bucket_why}")
    from dataclasses import replace

    return replace(report, summary=tuple(lines))


def _rates(rates: list[float]) -> str:
    low, high = min(rates), max(rates)
    return f"; {low:.3g} fps" if abs(high - low) < 0.01 else f"; {low:.3g}–{high:.3g} fps"


def probe_staged(paths: dict[str, Path], *, on_progress: Callable[[int, int], None] | None = None,
                 cancelled=None, cache=None) -> list[tuple[str, ClipFacts]]:
    """Read every staged clip (clip -> file) through the shared clip probe."""
    from ltx_wizard.core.dataset.clip_probe import probe_clips

    names = list(paths)
    facts = probe_clips([paths[n] for n in names], on_progress=on_progress, cancelled=cancelled,
                        cache=cache)
    return list(zip(names, facts))
