"""What the trainer's preprocessing does with one clip, from its facts: kept, dropped, or stopped
on; and, for a kept one, how its frames are changed (cropped, upscaled, sideways, re-timed).

Each rule mirrors ltx-trainer scripts/process_videos.py MediaDataset (named beside it); the
sample's audio is judged by the caller (a clip without sound gets no audio latents).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ltx_wizard.core.dataset.buckets import Bucket, min_frames
from ltx_wizard.core.dataset.clip_facts import ClipFacts

KEPT, DROPPED, STOPS = "kept", "dropped", "stops"
CROP_NAMED_BELOW = 0.9  # a crop that keeps less of a side than this is named
SIDEWAYS = {90: "sideways", 270: "sideways", 180: "upside down"}


@dataclass(frozen=True)
class ClipProblem:
    clip: str  # as written in the dataset file
    kind: str  # "unreadable", "too short", "still", "no audio", "reference", "cropped",
    # "upscaled", "rotated", "variable rate"
    fate: str  # what becomes of the sample: "stops", "dropped", "left out", "trained"
    why: str  # what is wrong with it, short ("40 frames, fewer than the bucket's 49")
    does: str  # what the trainer does with it ("the trainer skips it")

    @property
    def text(self) -> str:
        return f"{self.clip}: {self.why}: {self.does}"

    @property
    def leaves_training(self) -> bool:
        return self.fate != "trained"


@dataclass(frozen=True)
class Fit:
    bucket: Bucket
    scale: float  # resize factor before the crop (> 1: upscaled)
    width_kept: float  # share of the stored width left after the center crop
    height_kept: float


def pick_bucket(buckets: tuple[Bucket, ...], frames: int, width: int, height: int) -> Bucket | None:
    # mirrors process_videos.py MediaDataset._get_resolution_bucket_for_item: buckets with at
    # most the decoded frames (read_video stops at the largest bucket's), nearest aspect ratio in
    # log scale, then more frames, then more pixels; none: it raises
    decoded = min(frames, max(b.frames for b in buckets))
    fitting = [b for b in buckets if b.frames <= decoded]
    if not fitting:
        return None
    return min(
        fitting,
        key=lambda b: (
            abs(math.log(width / height) - math.log(b.width / b.height)),
            -b.frames,
            -(b.width * b.height),
        ),
    )


def fit(width: int, height: int, bucket: Bucket) -> Fit:
    # mirrors process_videos.py MediaDataset._resize_and_crop: scale so the bucket is covered
    # (by height when the clip is wider, else by width, int-truncated), then center-crop
    if width / height > bucket.width / bucket.height:
        scale, new_w, new_h = bucket.height / height, int(width * bucket.height / height), bucket.height
    else:
        scale, new_w, new_h = bucket.width / width, bucket.width, int(height * bucket.width / width)
    return Fit(bucket, scale, min(1.0, bucket.width / new_w), min(1.0, bucket.height / new_h))


def judge_clip(clip: str, facts: ClipFacts, buckets: tuple[Bucket, ...]) -> tuple[str, list[ClipProblem]]:
    """(KEPT, DROPPED or STOPS, the problems the trainer's handling of this clip brings)."""
    if facts.kind == "image":
        return _judge_still(clip, facts, buckets)
    if facts.error is not None or facts.frames is None:
        why = facts.error or "its frames could not be counted"
        # mirrors process_videos.py _filter_valid_videos: any error reading it drops it
        return DROPPED, [
            ClipProblem(clip, "unreadable", "dropped", f"cannot be read ({why})", "the trainer skips it")
        ]
    need = min_frames(buckets)
    if facts.frames < need:
        # mirrors _filter_valid_videos: fewer frames than the smallest bucket's: skipped
        return DROPPED, [
            ClipProblem(
                clip,
                "too short",
                "dropped",
                f"{facts.frames} frames, fewer than the bucket's {need}",
                "the trainer skips it",
            )
        ]
    problems = _geometry(clip, facts, buckets, facts.frames)
    if facts.rotation in SIDEWAYS:
        # mirrors ltx_trainer/video_utils.py read_video: frames as stored, display matrix unused
        problems.append(
            ClipProblem(
                clip,
                "rotated",
                "trained",
                f"meant to be shown rotated {facts.rotation} degrees",
                f"the trainer decodes it as stored ({facts.width}x{facts.height}) and trains on it "
                f"{SIDEWAYS[facts.rotation]}",
            )
        )
    if facts.variable_fps:
        problems.append(
            ClipProblem(
                clip,
                "variable rate",
                "trained",
                "variable frame rate",
                f"the trainer takes its frames in order as if at {facts.fps:g} fps, so its motion "
                "and sound drift apart",
            )
        )
    return KEPT, problems


def _judge_still(clip: str, facts: ClipFacts, buckets: tuple[Bucket, ...]) -> tuple[str, list[ClipProblem]]:
    # mirrors _filter_valid_videos (stills are kept unread) and __getitem__/_preprocess_image
    # (PIL opens it, then a bucket of at most 1 frame is looked for: none raises)
    if facts.error is not None:
        return STOPS, [
            ClipProblem(
                clip,
                "unreadable",
                "stops",
                f"cannot be read as an image ({facts.error})",
                "the trainer's preprocessing stops on it",
            )
        ]
    if not any(b.frames == 1 for b in buckets):
        return STOPS, [
            ClipProblem(
                clip,
                "still",
                "stops",
                "an image, and no bucket has 1 frame",
                "the trainer's preprocessing stops on it",
            )
        ]
    return KEPT, _geometry(clip, facts, buckets, 1)


def _geometry(clip: str, facts: ClipFacts, buckets: tuple[Bucket, ...], frames: int) -> list[ClipProblem]:
    if not facts.width or not facts.height:
        return []
    bucket = pick_bucket(buckets, frames, facts.width, facts.height)
    if bucket is None:
        return []
    shape, done = f"{facts.width}x{facts.height}", fit(facts.width, facts.height, bucket)
    out = []
    if done.scale > 1.0:
        out.append(
            ClipProblem(
                clip,
                "upscaled",
                "trained",
                f"{shape}, smaller than the bucket",
                f"upscaled x{done.scale:.2f} to cover {bucket.width}x{bucket.height}",
            )
        )
    side, share = (
        ("height", done.height_kept) if done.height_kept < done.width_kept else ("width", done.width_kept)
    )
    if share < CROP_NAMED_BELOW:
        out.append(
            ClipProblem(
                clip,
                "cropped",
                "trained",
                f"{shape} in a {bucket.width}x{bucket.height} bucket",
                f"scaled and center-cropped, keeping {share:.0%} of its {side}",
            )
        )
    return out
