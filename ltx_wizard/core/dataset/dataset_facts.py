"""A dataset file's clips as the trainer will use them: one record that `check`, `plan` (plan.md)
and the screens all read, so each shows the same counts.

"N of M usable" is the number of samples the trainer trains on: the clips its preprocessing
keeps (process_videos.py _filter_valid_videos drops unreadable and too-short ones) less, under a
recipe that trains audio, those without sound (they get no audio_latents/ file, and
ltx_trainer/datasets.py PrecomputedDataset._discover_samples keeps only samples with a file in
every folder the strategy reads).
"""

from __future__ import annotations

from pathlib import Path

from ltx_wizard.core.base.records import record
from ltx_wizard.core.dataset.clip_problems import ClipProblem

NAMED = 3  # clips named per warning line

# one line per kind of problem, in this order; {n}: how many clips
HEADS = (
    (("unreadable", "too short"), "the trainer skips {n} clip(s)"),
    (
        ("no audio",),
        "{n} clip(s) have no sound, and the recipe trains audio: the trainer leaves "
        "them out of training (--video-only trains them, without audio)",
    ),
    (("cropped",), "{n} clip(s) lose part of the picture to the bucket's center crop"),
    (("upscaled",), "{n} clip(s) are smaller than their bucket and upscaled"),
    (("rotated",), "{n} clip(s) are stored rotated and trained as stored"),
    (("variable rate",), "{n} clip(s) have a variable frame rate"),
)


@record
class DatasetFacts:
    dataset: Path
    rows: int  # entries in the dataset file (M)
    buckets: str
    trains_audio: bool = False  # the recipe trains audio from each clip's own sound
    kept: tuple[str, ...] = ()  # the .pt name of each clip the preprocessing encodes, file order
    silent: tuple[str, ...] = ()  # clips (as written) without sound, when trains_audio
    silent_samples: tuple[str, ...] = ()  # their .pt names: no audio latents, left out
    dropped: tuple[tuple[str, str], ...] = ()  # (clip, why) the preprocessing skips
    problems: tuple[ClipProblem, ...] = ()  # every clip's problem, as the trainer handles it
    read: int = 0  # clips whose media were read
    sampled: bool = False  # too many to read all: `read` clips spread over the file were
    shortest: tuple[str, int] | None = None  # (clip, frames) of the shortest clip read
    frame_cap: int | None = None  # the most frames a bucket can have for every clip to stay
    not_checked: str = ""  # what was not checked and why ("" when every clip was read)

    @property
    def usable(self) -> tuple[str, ...]:
        """The .pt names of the samples the trainer trains on (N)."""
        left_out = set(self.silent_samples)
        return tuple(s for s in self.kept if s not in left_out)

    @property
    def estimated_usable(self) -> int:
        """N, scaled from the clips read when only a sample of them was."""
        if not self.sampled or not self.read:
            return len(self.usable)
        read_usable = self.read - len(self.dropped) - len(self.silent)
        return round(self.rows * read_usable / self.read)

    @property
    def warnings(self) -> tuple[str, ...]:
        out = [] if not self.not_checked else [f"not checked: {self.not_checked}"]
        for kinds, head in HEADS:
            found = [p for p in self.problems if p.kind in kinds]
            if found:
                more = f" (and {len(found) - NAMED} more)" if len(found) > NAMED else ""
                named = "; ".join(p.text for p in found[:NAMED])
                out.append(f"{head.format(n=len(found))}: {named}{more}")
        return tuple(out)

    def describe(self) -> str:
        if self.read == 0 and self.not_checked:
            return (
                f"{self.rows} clips listed for {self.buckets}, none of them read: how many the "
                "trainer keeps is not known"
            )
        if self.sampled:
            text = (
                f"about {self.estimated_usable} of {self.rows} clips usable at {self.buckets} "
                f"(from {self.read} clips read, spread over the file)"
            )
        else:
            text = f"{len(self.usable)} of {self.rows} clips usable at {self.buckets}"
            lost = [f"{len(self.dropped)} skipped"] if self.dropped else []
            lost += [f"{len(self.silent)} without sound"] if self.silent else []
            text += f" ({', '.join(lost)})" if lost else ""
        if self.shortest is not None:
            text += (
                f"; shortest {self.shortest[0]} ({self.shortest[1]} frames: buckets up to "
                f"{self.frame_cap} frames keep every clip)"
            )
        return text
