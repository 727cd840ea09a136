"""The source staged under `<run>/dataset/` as links: the user's files are never moved, copied or
changed, and every media path in the dataset rows is relative to the dataset file's folder, as
the trainer's scripts resolve them (process_videos.py _load_paths_from_dataset: data_root /
value; caption_videos.py writes paths relative to its output file; compute_reference.py reads
them relative to its input folder).

A folder's clips keep their layout under `dataset/videos/`; one video goes to `dataset/videos/`;
a dataset file's rows keep their columns, each media path linked at the same relative place
(a path that is absolute or climbs out with `..` is linked under `dataset/media/` instead).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path, PurePosixPath

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.records import record
from ltx_wizard.core.dataset.rows import MEDIA_ROLES, read_dataset_file
from ltx_wizard.core.io.safe_fs import check_inside, os_failure
from ltx_wizard.core.prepare.source import Source, reference_for

VIDEOS = "videos"  # the skill's staging folder (phases/prepare-dataset.md, Step 1)
REFERENCES = "references"  # a folder's `x_reference.mp4` files: kept apart, never captioned
OUTSIDE = "media"  # where paths that leave the dataset file's folder are linked


@record
class Staged:
    dataset_dir: Path
    columns: tuple[str, ...]
    roles: dict[str, str]  # role -> column, as process_dataset.py _resolve_columns maps them
    rows: tuple[dict[str, str], ...]  # media paths relative to dataset_dir
    originals: dict[str, str]  # staged path (relative) -> the user's file it links to

    @property
    def video_column(self) -> str:
        return self.roles.get("video", "video")

    @property
    def caption_column(self) -> str:
        return self.roles.get("caption", "caption")

    def media(self, row: dict[str, str]) -> Path:
        return self.dataset_dir / row[self.video_column].strip()


def stage(source: Source, dataset_dir: Path, run_dir: Path, *, prefix: str = "") -> Staged:
    """Link the source's media under `dataset_dir` (inside `run_dir`); returns the rows.
    `prefix`: a folder under dataset/ of their own (a held-out set's, apart from the clips)."""
    if source.kind == "dataset":
        return _stage_dataset_file(source, dataset_dir, run_dir, prefix)
    base = source.path if source.kind == "folder" else source.path.parent
    rows: list[dict[str, str]] = []
    originals: dict[str, str] = {}
    for clip in source.media:
        rel = str(PurePosixPath(prefix or ".", VIDEOS, *clip.relative_to(base).parts))
        link(run_dir, dataset_dir / rel, clip)
        originals[rel] = str(clip)
        row = {"video": rel}
        reference = reference_for(clip, source)
        if reference is not None:
            ref_rel = str(PurePosixPath(prefix or ".", REFERENCES, *reference.relative_to(base).parts))
            link(run_dir, dataset_dir / ref_rel, reference)
            originals[ref_rel] = str(reference)
            row["reference_video"] = ref_rel
        rows.append(row)
    columns = ("video", "reference_video") if source.references else ("video",)
    roles = {c: c for c in columns}
    return Staged(
        dataset_dir=dataset_dir, columns=columns, roles=roles, rows=tuple(rows), originals=originals
    )


def _stage_dataset_file(source: Source, dataset_dir: Path, run_dir: Path, prefix: str) -> Staged:
    ds = read_dataset_file(source.path)
    if not ds.rows:
        raise UsageError(f"dataset file {ds.path} has no entries: add one per clip")
    media_columns = [ds.roles[r] for r in MEDIA_ROLES if r in ds.roles]
    if not media_columns:
        raise UsageError(
            f"dataset file {ds.path} has no media column (video, media_path, audio, "
            f"...; its columns: {', '.join(ds.columns) or 'none'}): add one"
        )
    placed: dict[str, str] = {}  # original -> staged rel (one link per file)
    rows = []
    for row in ds.rows:
        out = dict(row)
        for column in media_columns:
            value = str(row.get(column, "")).strip()
            if value:
                out[column] = _place(ds.folder / value, value, placed, prefix)
        rows.append(out)
    for original, rel in placed.items():
        link(run_dir, dataset_dir / rel, Path(original))
    return Staged(
        dataset_dir=dataset_dir,
        columns=ds.columns,
        roles=dict(ds.roles),
        rows=tuple(rows),
        originals={rel: orig for orig, rel in placed.items()},
    )


def _place(original: Path, value: str, placed: dict[str, str], prefix: str) -> str:
    """Where `original` (written as `value` in the file) is linked under the dataset folder."""
    key = os.path.abspath(original)
    if key in placed:
        return placed[key]
    written = PurePosixPath(value.replace("\\", "/"))
    if not written.is_absolute() and ".." not in written.parts and written.parts:
        rel = str(PurePosixPath(prefix or ".", written))
    else:  # outside the file's folder: linked by name, numbered when names meet
        taken = set(placed.values())
        rel = str(PurePosixPath(prefix or ".", OUTSIDE, original.name))
        n = 2
        while rel in taken:
            rel = str(PurePosixPath(prefix or ".", OUTSIDE, f"{original.stem}-{n}{original.suffix}"))
            n += 1
    placed[key] = rel
    return rel


def link(run_dir: Path, where: Path, target: Path) -> None:
    """A symlink at `where` to the user's `target`, made atomically; an older link there (an
    earlier prepare) is replaced, a real file is never touched."""
    check_inside(run_dir, where.parent / ".keep")  # real folders down to it; the link is ours
    target_text = os.path.abspath(target)
    if target_text == os.path.abspath(where):  # the run's own dataset given back as the source
        return
    with contextlib.suppress(OSError):
        if os.readlink(where) == target_text:
            return
    if os.path.lexists(where) and not os.path.islink(where):
        raise UsageError(
            f"{where} is a file, not a link the wizard made: move it out of the "
            "run folder's dataset/ (your own files are never overwritten)"
        )
    tmp = where.with_name(f".{where.name}.link-tmp")
    try:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        os.symlink(target_text, tmp)
        os.replace(tmp, where)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise os_failure(where, exc) from None


def unlink_staged(run_dir: Path, where: Path) -> None:
    """Remove a link this module made (a clip replaced by its scenes or its rotated copy)."""
    check_inside(run_dir, where.parent / ".keep", create_dirs=False)  # the link itself is ours
    if os.path.islink(where):
        os.unlink(where)
