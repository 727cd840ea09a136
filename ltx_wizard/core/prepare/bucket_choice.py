"""A bucket suggested from the clips: the aspect ratio most of them have, about the default's
area (never larger than the clips themselves), and the most frames the shortest video fills.

A still needs a bucket of 1 frame (process_videos.py MediaDataset._get_resolution_bucket_for_item
considers only buckets with no more frames than the item has; a still has one), so stills add
one; with several buckets the trainer's batch size must be 1 (process_dataset.py warns so).
"""

from __future__ import annotations

import math
import statistics

from ltx_wizard.core.dataset.buckets import (
    DEFAULT_BUCKETS,
    SPATIAL,
    TEMPORAL,
    Bucket,
    buckets_text,
    frame_cap,
    parse_buckets,
)

DEFAULT = parse_buckets(DEFAULT_BUCKETS)[0]  # 960x544x49, the trainer docs' default
ASPECT_LIMIT = 21 / 9  # the widest (and, turned, the tallest) suggested bucket


def _side(value: float) -> int:
    return max(SPATIAL, int(round(value / SPATIAL)) * SPATIAL)


def suggest(sizes: list[tuple[int, int]], frames: list[int], images: int) -> tuple[str, str]:
    """(bucket text, why) from the videos' stored sizes and frame counts (and any stills)."""
    if not sizes:
        side = DEFAULT if not images else Bucket(DEFAULT.width, DEFAULT.height, 1)
        return side.text(), "no video size read: the trainer docs' default size"
    aspect = statistics.median(w / h for w, h in sizes)
    aspect = min(max(aspect, 1 / ASPECT_LIMIT), ASPECT_LIMIT)
    area: float = DEFAULT.width * DEFAULT.height
    typical = statistics.median(w * h for w, h in sizes)
    smaller = typical < area
    area = min(area, typical)  # never suggest enlarging most clips
    width, height = _side(math.sqrt(area * aspect)), _side(math.sqrt(area / aspect))
    usable = [f for f in frames if f >= TEMPORAL + 1]
    shortest = min(usable) if usable else DEFAULT.frames
    count = frame_cap(min(DEFAULT.frames, shortest)) or 1
    chosen = [Bucket(width, height, count)]
    shape = "portrait" if aspect < 1 else "landscape" if aspect > 1 else "square"
    why = [
        f"{shape} clips (median aspect {aspect:.2f})",
        "the clips' own size (smaller than the default's)"
        if smaller
        else f"about the default {DEFAULT.width}x{DEFAULT.height}'s area",
    ]
    why.append(
        f"{count} frames: the shortest video has {shortest}"
        if count < DEFAULT.frames
        else f"{count} frames (the default; the shortest video has {shortest})"
    )
    if images:
        chosen.append(Bucket(width, height, 1))
        why.append(
            f"a 1-frame bucket for the {images} still(s) (with several buckets the "
            "trainer's batch size must be 1)"
        )
    return buckets_text(tuple(chosen)), "; ".join(why)
