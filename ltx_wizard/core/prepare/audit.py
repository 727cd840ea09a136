"""The clip audit: every staged clip read in-process with PyAV as the trainer reads it
(core/dataset/clip_probe.py, parallel, with progress and cancel), each judged by the trainer's
own handling of it (core/dataset/clip_problems.py judge_clip: skipped, stops the preprocessing,
cropped, upscaled, trained sideways, re-timed), plus what prepare adds: the fix for each, the
clips without sound under a recipe that trains audio (no audio latents: the trainer leaves the
sample out), the long videos a scene split applies to, and a bucket suggested from the clips.
"""

from __future__ import annotations

import statistics
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Literal

from ltx_wizard.core.base.records import record
from ltx_wizard.core.dataset.buckets import Bucket, buckets_text, parse_buckets
from ltx_wizard.core.dataset.clip_facts import ClipFacts
from ltx_wizard.core.dataset.clip_problems import KEPT, ClipProblem, fit, judge_clip, pick_bucket
from ltx_wizard.core.prepare.bucket_choice import suggest

if TYPE_CHECKING:  # the clip reader is imported where the clips are read
    from ltx_wizard.core.dataset.clip_cache import FactsCache
    from ltx_wizard.core.dataset.clip_probe import CancelFlag

LONG_CLIP_S = 10.0  # a video this long is a candidate for the scene split
FIXES = {
    "rotated": "fix: an upright copy in the run folder (offered; the original is untouched)",
    "variable rate": "fix: re-encode it at a constant rate (ffmpeg -i IN -fps_mode cfr OUT.mp4)",
    "still": "fix: a 1-frame bucket beside the video one (the suggested bucket has it)",
}


@record
class Finding:
    clip: str  # its path under dataset/
    kind: str  # clip_problems kinds ("rotated", "cropped", ...) and "no audio"
    text: str  # what the trainer does with it, and the fix


@record
class AuditReport:
    total: int
    videos: int
    images: int
    bucket: str  # the suggested bucket(s)
    bucket_why: str
    findings: tuple[Finding, ...] = ()
    rotated: tuple[tuple[str, int], ...] = ()  # (clip, counter-clockwise degrees)
    dropped: tuple[tuple[str, str], ...] = ()  # (clip, why): never reaches training
    long: tuple[str, ...] = ()  # videos of LONG_CLIP_S or more (scene split candidates)
    with_audio: tuple[str, ...] = ()
    summary: tuple[str, ...] = ()  # the audit's lines, as shown

    def of(self, kind: str) -> list[Finding]:
        return [f for f in self.findings if f.kind == kind]


def audit(
    facts: list[tuple[str, ClipFacts]],
    *,
    buckets: str | None,
    audio_trained: bool,
    recipe: str = "this recipe",
) -> AuditReport:
    """Judge each (clip, facts) against `buckets` (None: the bucket suggested from the clips)."""
    readable = [(c, f) for c, f in facts if f.readable]
    videos = [(c, f) for c, f in readable if f.kind == "video"]
    images = [(c, f) for c, f in readable if f.kind == "image"]
    sizes = [(f.width, f.height) for _, f in videos if f.width and f.height]
    suggested, why = suggest(sizes, [f.frames for _, f in videos if f.frames], len(images))
    chosen = parse_buckets(buckets or suggested)
    findings, dropped = [], []
    for clip, info in facts:
        fate, problems = judge_clip(clip, info, chosen)
        findings += [_finding(p) for p in problems]
        if fate != KEPT:
            dropped.append((clip, f"{problems[0].why}: {problems[0].does}"))
        elif audio_trained and info.kind == "video" and not info.has_audio:
            findings.append(
                Finding(
                    clip=clip,
                    kind="no audio",
                    text=(
                        f"no audio stream: {recipe} trains sound, so this sample gets no audio latents "
                        "and the trainer leaves it out; fix: give it a sound track, or train video only "
                        "(plan --video-only, or the Video only box)"
                    ),
                )
            )
    out = AuditReport(
        total=len(facts),
        videos=len(videos),
        images=len(images),
        bucket=suggested,
        bucket_why=why,
        findings=tuple(findings),
        dropped=tuple(dropped),
        rotated=tuple((c, f.rotation) for c, f in videos if f.rotation),
        long=tuple(c for c, f in videos if (f.duration_s or 0) >= LONG_CLIP_S),
        with_audio=tuple(c for c, f in videos if f.has_audio),
    )
    return replace(out, summary=tuple(_summary(out, videos, chosen)))


def _finding(problem: ClipProblem) -> Finding:
    text = f"{problem.why}: {problem.does}"
    if problem.leaves_training:
        text += "; left out of the dataset"
    elif problem.kind in FIXES:
        text += f"; {FIXES[problem.kind]}"
    return Finding(clip=problem.clip, kind=problem.kind, text=text)


def _summary(
    report: AuditReport, videos: list[tuple[str, ClipFacts]], buckets: tuple[Bucket, ...]
) -> list[str]:
    lines = [
        f"{report.total} clip(s): {report.videos} video(s), {report.images} still(s)"
        + (f", {len(report.dropped)} left out" if report.dropped else "")
    ]
    frames = [(c, f.frames) for c, f in videos if f.frames]
    if frames:
        shortest = min(frames, key=lambda x: x[1])
        rates = [f.fps for _, f in videos if f.fps]
        vfr = sum(f.variable_fps for _, f in videos)
        lines.append(
            f"frames {shortest[1]}–{max(n for _, n in frames)} (shortest {shortest[0]})"
            + (_rates(rates) if rates else "")
            + (f", {vfr} variable" if vfr else "")
        )
    shares = [
        (c, done.width_kept * done.height_kept)
        for c, f in videos
        if f.width and f.height
        for b in [pick_bucket(buckets, f.frames or 1, f.width, f.height)]
        if b
        for done in [fit(f.width, f.height, b)]
    ]
    if shares:
        low = min(shares, key=lambda x: x[1])
        lines.append(
            f"{buckets_text(buckets)} keeps {statistics.median(s for _, s in shares):.0%}"
            f" of each frame (median; least {low[1]:.0%}, {low[0]})"
        )
    lines.append(
        f"sound: {len(report.with_audio)} with an audio stream, "
        f"{report.videos - len(report.with_audio)} without"
    )
    lines.append(f"suggested bucket {report.bucket}: {report.bucket_why}")
    return lines


def _rates(rates: list[float]) -> str:
    low, high = min(rates), max(rates)
    return f"; {low:.3g} fps" if abs(high - low) < 0.01 else f"; {low:.3g}–{high:.3g} fps"


def probe_staged(
    paths: dict[str, Path],
    *,
    on_progress: Callable[[int, int], None] | None = None,
    cancelled: CancelFlag = None,
    cache: FactsCache | Literal[False] | None = None,
) -> list[tuple[str, ClipFacts]]:
    """Read every staged clip (clip -> file) through the shared clip probe."""
    from ltx_wizard.core.dataset.clip_probe import probe_clips

    names = list(paths)
    facts = probe_clips([paths[n] for n in names], on_progress=on_progress, cancelled=cancelled, cache=cache)
    return list(zip(names, facts))
