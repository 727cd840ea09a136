"""Resolution buckets ("WxHxF;WxHxF"): the trainer's rules for them and what they imply.

The rules are the default video VAE's compression factors (32 x 32 spatial, 8 temporal); the
trainer derives them from the checkpoint, and every released LTX-2 checkpoint has these.
"""

from __future__ import annotations

from typing import NamedTuple

from ltx_wizard.core.base.arguments import parse_count
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.text_safety import clean_text, clip

SPATIAL = 32  # ltx_trainer video VAE spatial factor (VIDEO_SCALE_FACTORS in ltx-core)
TEMPORAL = 8  # its temporal factor
DEFAULT_BUCKETS = "960x544x49"  # the trainer docs' and the skill's proposed default
# a bound on each number typed (ASCII digits only): 5,000 digits are refused, not parsed
MOST_SIDE = 65_536


class Bucket(NamedTuple):
    width: int
    height: int
    frames: int

    def text(self) -> str:
        return f"{self.width}x{self.height}x{self.frames}"

    def latent_shape(self) -> tuple[int, int, int]:
        """(frames, height, width) of the video latents the VAE makes for this bucket."""
        return ((self.frames - 1) // TEMPORAL + 1, self.height // SPATIAL, self.width // SPATIAL)


def parse_buckets(text: str) -> tuple[Bucket, ...]:
    """Mirrors ltx-trainer scripts/process_videos.py parse_resolution_buckets (its messages)."""
    out: list[Bucket] = []
    for part in str(text).strip().split(";"):
        try:
            w, h, f = (parse_count(v, "", most=MOST_SIDE) for v in part.strip().split("x"))
        except (ValueError, UsageError):
            raise UsageError(
                f"resolution bucket {clip(clean_text(part.strip()), 40)!r} is not WxHxF in whole "
                f"numbers up to {MOST_SIDE:,} (e.g. {DEFAULT_BUCKETS}): fix --resolution-buckets"
            ) from None
        if w <= 0 or h <= 0 or f <= 0 or w % SPATIAL or h % SPATIAL:
            raise UsageError(
                f"resolution bucket {part.strip()}: width and height must be "
                f"multiples of {SPATIAL}x{SPATIAL}, got {w}x{h}"
            )
        if f % TEMPORAL != 1:
            raise UsageError(
                f"resolution bucket {part.strip()}: number of frames must be a "
                f"multiple of {TEMPORAL} plus 1, got {f} (e.g. {frame_cap(f) or 1})"
            )
        out.append(Bucket(w, h, f))
    return tuple(out)


def buckets_text(buckets: tuple[Bucket, ...]) -> str:
    return ";".join(b.text() for b in buckets)


def frame_cap(frames: int) -> int | None:
    """The largest bucket frame count (8k+1) a clip of `frames` frames can fill; None below 1."""
    if frames < 1:
        return None
    return (frames - 1) // TEMPORAL * TEMPORAL + 1


def min_frames(buckets: tuple[Bucket, ...]) -> int:
    # mirrors process_videos.py MediaDataset._filter_valid_videos: the smallest bucket's frames
    return min(b.frames for b in buckets)
