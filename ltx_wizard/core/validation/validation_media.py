"""The media a recipe's validation samples read, and whether a file is one the trainer can read.

What a recipe needs is read from its own `validation.samples` (never a list of ours): every string
under a condition's media keys is one slot. The trainer reads every slot when it starts
(ltx_trainer/validation_runner.py ValidationRunner.__init__ -> _encode_conditioning_media), so a
placeholder or an unreadable file stops the run before step 1. Each file is checked here as the
trainer will open it: which reader it takes (PIL, PyAV, torchaudio, torch.load) depends on the
condition and, for some, on the file's suffix; the file's first bytes must be a container that
reader opens, and every image, video and audio file must decode its first frame (through PyAV,
on FFmpeg's decoders as torchaudio's and the trainer's video reads are; PIL's PNG and JPEG
decoders fail on the same truncated files): a file cut short passes a first-bytes check and only
fails when the trainer opens it, after minutes of loading.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ltx_wizard.core.io.trainer_config import trainer_config

PLACEHOLDER = "/path/to/"  # how every shipped config spells a path the user must fill in
# The media keys of a validation condition (ltx_trainer/config.py, the ValidationCondition types).
MEDIA_KEYS = ("image_or_video", "video", "audio", "mask")
# ltx_trainer/validation_runner.py ValidationRunner._load_first_frame: these suffixes go to PyAV
FIRST_FRAME_VIDEO_SUFFIXES = (".mp4", ".avi", ".mov", ".mkv", ".webm")
# ValidationRunner._load_and_downsample_mask: these suffixes go to PIL, any other to PyAV
MASK_IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".webp")

IMAGE, VIDEO, AUDIO, TORCH = "image", "video", "audio", "torch"
READER = {IMAGE: "PIL", VIDEO: "PyAV", AUDIO: "torchaudio", TORCH: "torch.load"}
_MAGIC_BYTES = 16


@dataclass(frozen=True)
class MediaSlot:
    """One media path a validation sample's condition reads."""

    sample: int
    condition: int
    key: str  # image_or_video, video, audio or mask
    kind: str  # in words: image, video, audio, reference video, mask, ...
    value: str  # the path as the config has it

    @property
    def where(self) -> str:
        return f"validation.samples[{self.sample}].conditions[{self.condition}].{self.key}"

    @property
    def path(self) -> tuple[object, ...]:
        return ("validation", "samples", self.sample, "conditions", self.condition, self.key)


def _kind(cond: Mapping[str, Any], key: str) -> str:
    """What the slot holds, in the trainer's terms (the condition type names it)."""
    ctype = str(cond.get("type", ""))
    if key == "image_or_video":
        return "image"  # first_frame: an image, or a video whose first frame is taken
    if key == "mask":
        return "audio mask" if cond.get("audio") is not None else "mask"
    if ctype == "reference":
        return f"reference {key}"
    return key


def media_slots(config: Mapping[str, Any]) -> list[MediaSlot]:
    """Every media path of every validation sample, in sample order."""
    slots = []
    for i, sample in enumerate(trainer_config(config).validation.samples or []):
        conditions = sample.get("conditions")
        for j, cond in enumerate(conditions if isinstance(conditions, list) else []):
            if not isinstance(cond, Mapping):
                continue
            for key in MEDIA_KEYS:
                value = cond.get(key)
                if isinstance(value, str):
                    slots.append(MediaSlot(i, j, key, _kind(cond, key), value))
    return slots


def expected_reader(slot: MediaSlot, path: str, cond: Mapping[str, Any] | None = None) -> str:
    """IMAGE, VIDEO, AUDIO or TORCH: how the trainer opens this slot's file."""
    suffix = Path(path).suffix.lower()
    if slot.key == "image_or_video":  # validation_runner.py _load_first_frame
        return VIDEO if suffix in FIRST_FRAME_VIDEO_SUFFIXES else IMAGE
    if slot.key == "mask":
        if slot.kind == "audio mask":  # _load_audio_mask: .pt through torch.load, else torchaudio
            return TORCH if suffix == ".pt" else AUDIO
        return IMAGE if suffix in MASK_IMAGE_SUFFIXES else VIDEO  # _load_and_downsample_mask
    return AUDIO if slot.key == "audio" else VIDEO  # _encode_audio / video_utils.read_video


def container_of(head: bytes) -> str | None:
    """The container the first bytes announce (None: none the trainer's readers know)."""
    box = head[4:8]
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "PNG"
    if head.startswith(b"\xff\xd8\xff"):
        return "JPEG"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "GIF"
    if head.startswith(b"BM"):
        return "BMP"
    if head.startswith((b"II*\x00", b"MM\x00*")):
        return "TIFF"
    if head.startswith(b"RIFF"):
        return {b"WEBP": "WebP", b"WAVE": "WAV", b"AVI ": "AVI"}.get(head[8:12])
    if box == b"ftyp":
        return "MP4/MOV"
    if head.startswith(b"\x1a\x45\xdf\xa3"):
        return "Matroska/WebM"
    if head.startswith(b"fLaC"):
        return "FLAC"
    if head.startswith(b"OggS"):
        return "Ogg"
    if head.startswith(b"ID3") or head[:2] in (b"\xff\xfb", b"\xff\xf3", b"\xff\xf2"):
        return "MP3"
    if head.startswith(b"PK\x03\x04"):
        return "zip (torch.save)"
    if head[:1] == b"\x80" and head[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        return "pickle (torch.save)"
    return None


# Which containers each reader opens (PyAV/torchaudio read through FFmpeg; PIL through its plugins).
OPENS = {
    IMAGE: {"PNG", "JPEG", "GIF", "BMP", "TIFF", "WebP"},
    VIDEO: {"MP4/MOV", "Matroska/WebM", "AVI", "GIF"},
    AUDIO: {"WAV", "FLAC", "Ogg", "MP3", "MP4/MOV", "Matroska/WebM"},
    TORCH: {"zip (torch.save)", "pickle (torch.save)"},
}


def check_medium(path: str, reader: str) -> str | None:
    """Why the trainer could not read `path` with `reader`, or None when it can."""
    if PLACEHOLDER in path:
        return f"{path!r} is the shipped placeholder, not a file"
    file = Path(path).expanduser()
    try:
        st = os.stat(file)
    except FileNotFoundError:
        return f"{path!r} does not exist"
    except OSError as exc:
        return f"{path!r} cannot be read ({exc.strerror})"
    if not stat.S_ISREG(st.st_mode):
        return f"{path!r} is not a regular file"
    try:
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        try:
            head = os.read(fd, _MAGIC_BYTES)
        finally:
            os.close(fd)
    except OSError as exc:
        return f"{path!r} cannot be read ({exc.strerror})"
    found = container_of(head)
    if found is None:
        return f"{path!r} is not a media file {READER[reader]} opens (no known container in its first bytes)"
    if found not in OPENS[reader]:
        return f"{path!r} is {found}, but the trainer reads this slot with {READER[reader]}"
    return _decode_problem(file, path, reader)


def _decode_problem(file: Path, path: str, reader: str) -> str | None:
    """Why the first frame of an image, video or audio file does not decode; None when it does
    (or when PyAV is missing: the first-bytes check then stands alone)."""
    if reader == TORCH:
        return None
    try:
        import av
    except ImportError:
        return None
    kind = "audio" if reader == AUDIO else "video"
    try:
        with av.open(str(file)) as container:
            streams = container.streams.audio if reader == AUDIO else container.streams.video
            if not streams:
                return f"{path!r} has no {kind} stream for {READER[reader]} to read"
            for _ in container.decode(streams[0]):
                return None
    except (av.FFmpegError, OSError, ValueError, EOFError) as exc:
        return (
            f"{path!r} does not decode (damaged or cut short?): {_first_line(exc)}; "
            f"{READER[reader]} would fail on it when the trainer starts"
        )
    return f"{path!r} holds no {kind} frame that decodes"


def _first_line(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text[:160]


def slot_problems(config: Mapping[str, Any]) -> list[tuple[MediaSlot, str]]:
    """(slot, problem) for each validation medium the trainer could not read at start-up."""
    out = []
    for slot in media_slots(config):
        problem = check_medium(slot.value, expected_reader(slot, slot.value))
        if problem:
            out.append((slot, problem))
    return out
