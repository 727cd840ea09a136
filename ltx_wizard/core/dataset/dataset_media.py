"""Media named in the dataset file beside the data root: offered as validation media.

The trainer's preprocessing reads a CSV, JSON or JSONL file whose columns name each sample's media
by role, and writes `.precomputed/` beside it (ltx-trainer scripts/process_dataset.py: the
convention table in its docstring, `_validate_dataset_file`, `_resolve_columns`; relative paths
resolve against the dataset file's folder, process_videos.py `_load_video_paths`). So the files
the user trained on are a good first offer for the samples a recipe's validation needs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ltx_wizard.core.dataset.rows import read_dataset_file
from ltx_wizard.core.base.errors import WizardError

DATASET_SUFFIXES = (".csv", ".json", ".jsonl")  # process_dataset.py _validate_dataset_file
DATASET_MAX_BYTES = 8 * 2**20
MAX_OFFERS = 9  # one key each: 1-9
# process_dataset.py _LEGACY_ALIASES
ALIASES = {"media_path": "video", "ref_media_path": "reference_video"}
# Which dataset roles fit which slot kind (core/validation/validation_media.py MediaSlot.kind), best first.
FITS = {
    "image": ("video",),  # first_frame takes an image, or a video's first frame
    "video": ("video",),
    "reference video": ("reference_video", "video"),
    "audio": ("audio",),
    "reference audio": ("reference_audio", "audio"),
    "mask": ("video_mask",),
    "audio mask": ("audio_mask",),
}


@dataclass(frozen=True)
class Offer:
    role: str  # the dataset column's role (video, audio, reference_video, ...)
    path: Path  # absolute
    source: Path  # the dataset file that names it


def dataset_files(data_root: Path) -> list[Path]:
    """CSV/JSON/JSONL files in the data root and the folder holding it (where .precomputed sits)."""
    root = Path(data_root).expanduser()
    found = []
    for folder in dict.fromkeys((root, root.parent)):
        try:
            entries = sorted(folder.iterdir())
        except OSError:
            continue
        found += [p for p in entries if p.suffix.lower() in DATASET_SUFFIXES and _is_file(p)]
    return found


def _rows(path: Path) -> list[dict[str, str]]:
    # the one reader of dataset files (rows.py: bounded, as the trainer reads them)
    return list(read_dataset_file(path, limit=DATASET_MAX_BYTES).rows)


def dataset_offers(data_root: Path) -> list[Offer]:
    """Every media file the dataset files beside `data_root` name, that exists (first MAX_OFFERS
    per role, in file order)."""
    offers: list[Offer] = []
    per_role: dict[str, int] = {}
    for source in dataset_files(data_root):
        try:
            rows = _rows(source)
        except WizardError:
            continue  # not a dataset file after all: nothing to offer from it
        for row in rows:
            if not isinstance(row, dict):
                continue
            for column, value in row.items():
                role = ALIASES.get(str(column), str(column))
                if role not in {r for roles in FITS.values() for r in roles} or not isinstance(value, str):
                    continue
                # as the trainer joins it (process_videos.py _load_paths_from_dataset): no `~`
                path = source.parent / value.strip()
                if per_role.get(role, 0) >= MAX_OFFERS or not _is_file(path):
                    continue
                per_role[role] = per_role.get(role, 0) + 1
                offers.append(Offer(role, path.resolve(), source))
    return offers


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError):  # a folder on the way that cannot be searched: no offer
        return False


def offers_for(kind: str, offers: list[Offer]) -> list[Offer]:
    """The offers that fit a slot of this kind, best role first, at most MAX_OFFERS."""
    roles = FITS.get(kind, ())
    ranked = sorted((o for o in offers if o.role in roles), key=lambda o: roles.index(o.role))
    return list(dict.fromkeys(ranked))[:MAX_OFFERS]
