"""An existing `.precomputed` folder checked against the dataset and the plan before reuse.

The skill's Phase 7 step 1: the folders the recipe needs are there, each holds a file for every
sample the dataset gives, and the video latents have the shape the bucket makes. A folder whose
files all match is reused as it is; one with the right shapes but fewer samples is resumed (the
preprocessing script skips samples already written); any mismatch is refused, never overwritten.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from ltx_wizard.core.base.records import record
from ltx_wizard.core.dataset.buckets import Bucket
from ltx_wizard.core.dataset.sources import LATENTS, audio_folder, expected_file, required_folders
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.dataset.pt_shapes import latent_size

SHAPE_SAMPLES = 3  # latents read per check: the script writes one bucket set per run


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


def verify_precomputed(root: Path, strategy: Mapping[str, Any] | None, samples: tuple[str, ...],
                       buckets: tuple[Bucket, ...], *, silent: tuple[str, ...] = ()) -> Verification:
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
    mismatch = _shape_mismatch(root, samples, buckets) if LATENTS in folders else ""
    return Verification(root=root, exists=True, complete=not missing, mismatch=mismatch,
                        missing=tuple(missing))


def _shape_mismatch(root: Path, samples: tuple[str, ...], buckets: tuple[Bucket, ...]) -> str:
    wanted = {b.latent_shape(): b for b in buckets}
    read = [s for s in samples if (root / LATENTS / s).is_file()][:SHAPE_SAMPLES]
    for sample in read:
        try:
            size = latent_size(root / LATENTS / sample)
        except UsageError as exc:
            return exc.message
        if len(size) != 4 or tuple(size[1:]) not in wanted:
            made = "x".join(map(str, size[1:]))
            want = " or ".join("x".join(map(str, s)) for s in wanted)
            return (f"{LATENTS}/{sample} has latents of {made} (frames x height x width), "
                    f"the bucket(s) {';'.join(b.text() for b in buckets)} make {want}")
    return ""
