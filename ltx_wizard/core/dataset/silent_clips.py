"""Clips whose sound the preprocessing did not encode, found after it ran, and what the user can
do about them.

process_videos.py compute_latents writes no audio_latents/ file for a video whose sound
`_load_audio_from_file` cannot load (no audio stream, or one torchaudio cannot decode: it
returns None and only counts "N videos without audio (skipped)"); the trainer then leaves that
sample out of an audio recipe's training (datasets.py PrecomputedDataset._discover_samples).
The plan expects audio from every clip it read sound in; this names the clips that still lack it.
"""

from __future__ import annotations

from pathlib import Path

from ltx_wizard.core.dataset.rows import DatasetFile
from ltx_wizard.core.dataset.sources import expected_file

NAMED = 3


def lacking_audio(
    ds: DatasetFile, root: Path, audio_folder: str, samples: tuple[str, ...]
) -> list[tuple[str, str]]:
    """(clip as written in the dataset file, .pt name) of each sample with video latents but no
    audio latents under `root`."""
    clips = {ds.output_rel(r): str(r[ds.roles["video"]]).strip() for r in ds.rows}
    return [
        (clips.get(s, s), s)
        for s in samples
        if (root / "latents" / s).is_file()
        and not (root / audio_folder / expected_file(audio_folder, s)).is_file()
    ]


def silent_advice(
    lacking: list[tuple[str, str]],
    *,
    step: str,
    reported: int | None,
    dataset: Path,
    log: Path,
    rerun: str | None,
) -> str:
    """The one-line failure: the clips named, why, and the ways on. `rerun`: the command that
    goes on without them (None when no clip with sound would be left)."""
    named = ", ".join(c for c, _ in lacking[:NAMED])
    more = f" (and {len(lacking) - NAMED} more)" if len(lacking) > NAMED else ""
    said = (
        f"its log says {reported} videos without audio (skipped)"
        if reported
        else "it found no sound it could load in them"
    )
    text = (
        f"the {step} wrote no audio latents for {len(lacking)} clip(s) the recipe trains "
        f"with sound: {named}{more} ({said}; {log}): take them out of {dataset}, or train "
        "video only (plan the run again with --video-only)"
    )
    if rerun is None:
        return text + "; no clip with sound would be left to train on"
    return (
        text + ", or go on without them as the trainer would (it leaves such samples out of "
        f"training): `{rerun}` again, which now expects no audio for them"
    )
