"""Conditioning inputs (references, masks, reference audio) checked to pair with their clips as
the trainer's preprocessing pairs them (phases/prepare-dataset.md, Step 4), before anything
heavy runs. What a reference or a mask shows is the user's idea: none is invented here. Canny
edge references are made by the trainer's scripts/compute_reference.py only when asked.

Mirrored rules (scripts/process_videos.py): every path of a media column must be a file, else
MediaDataset._load_video_paths stops the whole run; a reference video is filtered by its own
frame count (_filter_valid_videos) and dropped when shorter than the bucket, so its sample has no
reference latents; a video mask is read up to the bucket's frames (compute_video_masks) and a
shorter one leaves the mask shorter than the latents, while an image mask is tiled over every
frame; reference audio and audio masks are read with torchaudio.load (_load_audio_from_file).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping

from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.records import record
from ltx_wizard.core.dataset.rows import required_roles
from ltx_wizard.core.prepare.scripts import ScriptRunner, flags_of, require_options, run_script

CONDITIONING = ("reference_video", "reference_audio", "video_mask", "audio_mask")
# process_videos.py IMAGE_FILE_EXTENSIONS: a still mask is tiled across the frames
MASK_IMAGES = (".png", ".jpg", ".jpeg", ".heic", ".heif", ".bmp", ".tiff", ".webp")
REFERENCE_SCRIPT = "compute_reference.py"
NEEDS = {
    "reference_video": "a reference video per clip (column reference_video, or ref_media_path), "
    "aligned to it; what it shows is your call",
    "reference_audio": "a reference audio file per clip (column reference_audio)",
    "video_mask": "a mask video or image per clip (column video_mask): white where the model "
    "generates, black where it keeps the clip; what it covers is your call",
    "audio_mask": "an audio mask per clip (column audio_mask: a .pt tensor or an audio file)",
}


@record
class Pairing:
    role: str
    column: str
    problems: tuple[tuple[str, str], ...] = ()  # (clip, what is wrong with its input)

    def describe(self) -> str:
        if not self.problems:
            return f"{self.column}: every clip has its {self.role.replace('_', ' ')}"
        named = "; ".join(f"{c}: {why}" for c, why in self.problems[:4])
        more = f" (+{len(self.problems) - 4} more)" if len(self.problems) > 4 else ""
        return f"{self.column}: {len(self.problems)} clip(s) without a usable input: {named}{more}"


def needed_roles(strategy: Mapping[str, Any] | None) -> list[str]:
    """The conditioning columns the recipe reads (its training_strategy's folders)."""
    return [r for r in required_roles(strategy) if r in CONDITIONING]


def missing_inputs(roles: Mapping[str, str], strategy: Mapping[str, Any] | None, canny: bool) -> list[str]:
    """The hard gate: each input the recipe needs that the dataset does not have, said as what
    to provide. A reference video is not missing when Canny references were asked for."""
    out = []
    for role in needed_roles(strategy):
        if role in roles or (role == "reference_video" and canny):
            continue
        hint = (
            " (or, only if you want Canny edge maps, --canny: the trainer's "
            f"scripts/{REFERENCE_SCRIPT} makes them)"
            if role == "reference_video"
            else ""
        )
        out.append(f"this recipe needs {NEEDS[role]}{hint}")
    return out


def check_pairs(
    rows: list[dict[str, str]],
    roles: Mapping[str, str],
    video_column: str,
    dataset_dir: Path,
    min_frames: int,
    facts: Callable[[Path], Any],
) -> list[Pairing]:
    """Each conditioning column present, checked row by row against its clip."""
    out = []
    for role in CONDITIONING:
        column = roles.get(role)
        if column is None:
            continue
        problems = []
        for row in rows:
            clip = row.get(video_column) or row.get(roles.get("audio", ""), "?")
            why = _problem(role, str(row.get(column, "")).strip(), dataset_dir, min_frames, facts)
            if why:
                problems.append((clip, why))
        out.append(Pairing(role=role, column=column, problems=tuple(problems)))
    return out


def _problem(role: str, value: str, dataset_dir: Path, min_frames: int, facts: Callable[[Path], Any]) -> str:
    if not value:
        return "empty (every row needs one: the trainer pairs them row by row)"
    path = dataset_dir / value
    if not path.is_file():
        return f"{value} is not a file (the trainer stops the whole run on it)"
    if role == "audio_mask" and path.suffix == ".pt":
        return ""
    if role == "video_mask" and path.suffix.lower() in MASK_IMAGES:
        return ""  # an image mask is tiled over every frame
    info = facts(path)
    if getattr(info, "error", None):
        return f"{value} cannot be read ({info.error})"
    if role in ("reference_audio", "audio_mask"):
        return "" if getattr(info, "has_audio", False) else f"{value} has no audio stream"
    frames = getattr(info, "frames", None)
    if frames is not None and frames < min_frames:
        kind = "reference" if role == "reference_video" else "mask"
        return (
            f"{value} has {frames} frames, fewer than the bucket's {min_frames} (the "
            f"{kind} would be dropped or come out shorter than its clip)"
        )
    return ""


def require_pairs(pairings: list[Pairing], dataset: str) -> None:
    bad = [p for p in pairings if p.problems]
    if bad:
        raise UsageError(
            f"{dataset}: {bad[0].describe()}: fix those inputs (one per clip) before preprocessing"
        )


async def make_canny_references(
    runner: ScriptRunner, dataset_dir: Path, dataset_file: Path, log: Path, env: Mapping[str, str]
) -> int:
    """scripts/compute_reference.py on the dataset file: Canny edge maps written beside each
    clip as `<stem>_reference<suffix>` and the reference_video column added in place."""
    args = [str(dataset_dir), "--output", str(dataset_file)]
    require_options(runner, REFERENCE_SCRIPT, flags_of(args))
    return await run_script(
        runner.argv(REFERENCE_SCRIPT, args), cwd=runner.trainer_dir, env={**env, **runner.env}, log=log
    )
