"""An existing `.precomputed` folder checked against the dataset and the plan before reuse.

The skill's Phase 7 step 1: the folders the recipe needs are there, each holds a file for every
sample the dataset gives, and every folder's tensors have the shapes the bucket and the sample's
other files make (core/dataset/latent_checks.py: video, reference and audio latents, masks,
text embeddings). A folder whose files all match is reused as it is; one with the right shapes
but fewer samples is resumed (the preprocessing script skips samples already written); any
mismatch is refused, never overwritten.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from ltx_wizard.core.base.records import record
from ltx_wizard.core.dataset.buckets import Bucket
from ltx_wizard.core.dataset.latent_checks import SampleShapes, folder_kinds
from ltx_wizard.core.dataset.sources import (
    audio_folder,
    expected_file,
    primary_folder,
    required_folders,
)

SHAPE_SAMPLES = 3  # samples read per check: the script writes one bucket set per run


@record
class Verification:
    root: Path
    exists: bool  # any folder the recipe reads is there
    complete: bool  # every sample has every file
    mismatch: str = ""  # why the files cannot be reused (shape, foreign files); "" when they can
    missing: tuple[tuple[str, int], ...] = ()  # (folder, samples without a file there)

    @property
    def reusable(self) -> bool:
        return self.exists and self.complete and not self.mismatch

    def describe(self) -> str:
        if not self.exists:
            return f"{self.root} does not exist yet: the full preprocess writes it"
        if self.mismatch:
            return f"{self.root} does not match this plan: {self.mismatch}"
        if self.complete:
            return f"{self.root} matches the dataset and the bucket: reused as it is"
        gaps = ", ".join(f"{f}/ lacks {n}" for f, n in self.missing)
        return f"{self.root} is partly written ({gaps}): the full preprocess resumes it"


def verify_precomputed(
    root: Path,
    strategy: Mapping[str, Any] | None,
    samples: tuple[str, ...],
    buckets: tuple[Bucket, ...],
    *,
    silent: tuple[str, ...] = (),
) -> Verification:
    """`silent`: samples whose clips have no sound, so no audio latents are expected for them."""
    folders = list(required_folders(strategy))
    audio = audio_folder(strategy)
    present = [f for f in folders if (root / f).is_dir()]
    if not present:
        return Verification(root=root, exists=False, complete=False)
    missing = []
    for folder in folders:
        wanted = [s for s in samples if not (folder == audio and s in silent)]
        have = sum((root / folder / expected_file(folder, s)).is_file() for s in wanted)
        if have < len(wanted):
            missing.append((folder, len(wanted) - have))
    mismatch = _shape_mismatch(root, strategy, samples, buckets)
    return Verification(
        root=root, exists=True, complete=not missing, mismatch=mismatch, missing=tuple(missing)
    )


def _shape_mismatch(
    root: Path, strategy: Mapping[str, Any] | None, samples: tuple[str, ...], buckets: tuple[Bucket, ...]
) -> str:
    kinds = folder_kinds(strategy)
    primary = primary_folder(required_folders(strategy))
    read = [s for s in samples if (root / primary / s).is_file()][:SHAPE_SAMPLES]
    fraction: dict[str, tuple[int, int]] = {}
    for sample in read:
        why = SampleShapes(root, sample, kinds, buckets, fraction).mismatch()
        if why:
            return why
    return ""
