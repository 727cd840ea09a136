"""What the user pointed `prepare` at: a folder of clips or images, one video, or a dataset file.

The media a folder holds are chosen by the extensions the trainer's scripts take:
caption_videos.py MEDIA_EXTENSIONS (video: mp4 avi mov mkv webm; image: jpg jpeg png, compared in
lower case) — the same stills process_videos.py MediaDataset treats as images (.png .jpg .jpeg).
"""

from __future__ import annotations

import os
from pathlib import Path

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.records import record
from ltx_wizard.core.dataset.rows import SUFFIXES as DATASET_SUFFIXES
from ltx_wizard.core.inputs.model_paths import resolve_user_path

VIDEO_SUFFIXES = (".mp4", ".avi", ".mov", ".mkv", ".webm")  # caption_videos.py VIDEO_EXTENSIONS
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")  # caption_videos.py IMAGE_EXTENSIONS
# compute_reference.py names a clip's reference `<stem>_reference<suffix>` beside it: in a folder,
# such a file is that clip's reference, not a clip of its own
REFERENCE_TAG = "_reference"
MAX_FILES = 200_000  # a folder walk stops here: a dataset is far smaller; a mistyped / is not


@record
class Source:
    path: Path
    kind: str  # "folder" | "video" | "dataset"
    media: tuple[Path, ...] = ()  # folder: every clip and still, sorted; video: the one file
    references: tuple[Path, ...] = ()  # folder: `<stem>_reference.*` files beside their clips
    skipped: tuple[Path, ...] = ()  # folder: files of other types (named, never staged)

    def describe(self) -> str:
        if self.kind == "dataset":
            return f"the dataset file {self.path}"
        if self.kind == "video":
            return f"one video, {self.path}"
        videos = sum(is_video(p) for p in self.media)
        text = f"{self.path}: {videos} video(s), {len(self.media) - videos} image(s)"
        if self.references:
            text += f", {len(self.references)} reference video(s)"
        return text


def is_video(path: Path) -> bool:
    return path.suffix.lower() in VIDEO_SUFFIXES


def is_image(path: Path) -> bool:
    return path.suffix.lower() in IMAGE_SUFFIXES


def read_source(text: str | os.PathLike[str], *, cwd: str | os.PathLike[str] | None = None) -> Source:
    """Classify SOURCE; raises one UsageError naming what is wrong with it."""
    path = resolve_user_path(text, what="source", cwd=cwd)
    if path.is_dir():
        return _folder(path)
    if not path.is_file():
        raise UsageError(
            f"source {path} is neither a folder nor a file: pass a folder of clips, "
            "one video, or a dataset file (.json, .jsonl, .csv)"
        )
    if path.suffix.lower() in DATASET_SUFFIXES:
        return Source(path=path, kind="dataset")
    if is_video(path):
        return Source(path=path, kind="video", media=(path,))
    raise UsageError(
        f"source {path}: not a video the trainer's scripts read "
        f"({', '.join(s[1:] for s in VIDEO_SUFFIXES)}) nor a dataset file "
        "(.json, .jsonl, .csv)"
    )


def _folder(root: Path) -> Source:
    media: list[Path] = []
    others: list[Path] = []
    seen = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))  # .precomputed, .git
        for name in sorted(files):
            seen += 1
            if seen > MAX_FILES:
                raise UsageError(
                    f"source {root} holds more than {MAX_FILES:,} files: point it at the folder of your clips"
                )
            if name.startswith("."):
                continue
            path = Path(folder) / name
            (media if is_video(path) or is_image(path) else others).append(path)
    videos = {(p.parent, p.stem): p for p in media if is_video(p)}
    references = [p for p in media if _reference_of(p, videos) is not None]
    taken = set(references)
    clips = [p for p in media if p not in taken]
    if not clips:
        raise UsageError(
            f"source {root} holds no clips or images the trainer's scripts read "
            f"({', '.join(s[1:] for s in VIDEO_SUFFIXES + IMAGE_SUFFIXES)})"
        )
    return Source(
        path=root, kind="folder", media=tuple(clips), references=tuple(references), skipped=tuple(others)
    )


def _reference_of(path: Path, videos: dict[tuple[Path, str], Path]) -> Path | None:
    """The clip `path` is the reference of (`x_reference.mp4` beside `x.mp4`), if any."""
    if not path.stem.endswith(REFERENCE_TAG) or not is_video(path):
        return None
    return videos.get((path.parent, path.stem[: -len(REFERENCE_TAG)]))


def reference_for(clip: Path, source: Source) -> Path | None:
    """The reference video staged beside `clip` in a folder source, if the folder has one."""
    return next(
        (r for r in source.references if r.parent == clip.parent and r.stem == clip.stem + REFERENCE_TAG),
        None,
    )
