"""A clip's facts as the trainer will see them (the record core/dataset/clip_probe.py returns)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

# mirrors process_videos.py MediaDataset.__getitem__/_filter_valid_videos: these suffixes (lower
# case) are stills, opened with PIL as one frame and never frame-counted
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")


@dataclass(frozen=True)
class ClipFacts:
    path: Path
    kind: str  # "video" | "image"
    width: int | None  # as stored, before rotation (what the trainer's decode gives)
    height: int | None
    rotation: int  # display-matrix rotation, counter-clockwise degrees: 0, 90, 180 or 270
    frames: int | None  # as the trainer counts them (see frames_from)
    fps: float | None  # the rate the trainer reads (average, else base, else 24)
    variable_fps: bool
    duration_s: float | None
    has_audio: bool
    audio_codec: str | None
    error: str | None  # why it could not be read, one line; None when readable
    frames_from: str | None = None  # "container", "estimate" (duration x rate), "counted", "image"
    via: str = "pyav"  # "pyav", "ffprobe", or "none" (no reader: nothing was checked)

    @property
    def readable(self) -> bool:
        return self.error is None and self.via != "none"


def unread(path: Path, error: str, *, via: str = "pyav") -> ClipFacts:
    kind = "image" if Path(path).suffix.lower() in IMAGE_SUFFIXES else "video"
    return ClipFacts(
        path=Path(path),
        kind=kind,
        width=None,
        height=None,
        rotation=0,
        frames=None,
        fps=None,
        variable_fps=False,
        duration_s=None,
        has_audio=False,
        audio_codec=None,
        error=error,
        via=via,
    )


def image_facts(path: Path, width: int | None, height: int | None, *, via: str = "pyav") -> ClipFacts:
    """A still read whole: one frame, no rate, no sound (the trainer opens it with PIL)."""
    return ClipFacts(
        path=path,
        kind="image",
        width=width,
        height=height,
        rotation=0,
        frames=1,
        fps=None,
        variable_fps=False,
        duration_s=None,
        has_audio=False,
        audio_codec=None,
        error=None,
        frames_from="image",
        via=via,
    )
