"""The held-out clips' own `.precomputed` (issue 44): the clips prepare reserved
(`holdout.jsonl` beside the dataset file, core/prepare/holdout.py) encoded by the trainer's
process_dataset.py with the same model, buckets and trigger word as the training data (the plan's
one PreprocessSpec), into `<run>/holdout/.precomputed`, so that a held-out loss can be computed on
them per checkpoint. Never training data: config.yaml's data.preprocessed_data_root is the data
root, which may not be this folder, nor hold it, nor lie inside it (refused at plan time).

Run with the full preprocess step (the CLI's `preprocess` and the Preprocess screen share it),
after the training data, and recorded in preprocess.json: where no clips were held out, nothing is
run and the record says so. A held-out clip the script skips (too short for every bucket, no sound
to decode) is left out and said; a failed run is a warning, never a stop for training: the next
`preprocess` runs it again.
"""

from __future__ import annotations

import os
from pathlib import Path

from ltx_wizard.core.base.errors import UsageError, WizardError
from ltx_wizard.core.base.records import record
from ltx_wizard.core.dataset.rows import read_dataset_file
from ltx_wizard.core.io import run_folder


# core/prepare/holdout.py HOLDOUT_FILE, named again: prepare lies above this package (a test
# checks that the two agree)
HOLDOUT_FILE = "holdout.jsonl"


@record
class HeldOut:
    """What preprocess.json keeps of the held-out clips and their latents."""

    file: Path | None = None  # the held-out rows; None: no clips were held out
    root: Path | None = None  # where their latents go: <run>/holdout/.precomputed
    samples: tuple[str, ...] = ()  # each held-out row's .pt name, in file order
    done: bool = False  # encoded and checked
    encoded: tuple[str, ...] = ()  # of the samples, those with every file the recipe reads
    note: str = ""  # why nothing is done, or what was left out


def held_out_root(run_dir: Path) -> Path:
    return run_folder.HOLDOUT_DIR.path(run_dir) / ".precomputed"


def plan_held_out(run_dir: Path, dataset_file: Path, data_root: Path) -> HeldOut:
    """At plan time: the held-out file beside the dataset file, if prepare wrote one with rows."""
    path = Path(dataset_file).parent / HOLDOUT_FILE
    if not path.is_file():
        return HeldOut(note=f"no clips were held out (no {HOLDOUT_FILE} beside {Path(dataset_file).name})")
    rows = read_dataset_file(path)
    if not rows.rows:
        return HeldOut(note=f"no clips were held out ({path} lists none)")
    root = held_out_root(run_dir)
    require_apart(root, data_root)
    return HeldOut(file=path, root=root, samples=tuple(rows.output_rel(r) for r in rows.rows))


def require_apart(held_out: Path, data_root: Path) -> None:
    """The training data root never is, holds or lies inside the held-out latents' folder."""
    a, b = Path(os.path.abspath(held_out)), Path(os.path.abspath(data_root))
    if a == b or a in b.parents or b in a.parents:
        raise UsageError(
            f"the data root {data_root} overlaps {held_out}, where the held-out clips' latents go: "
            "held-out clips must never be trained on; pick another --precomputed-dir"
        )


def pending(held: HeldOut | None) -> bool:
    """Held-out clips still to encode."""
    return held is not None and held.file is not None and not held.done


def finished(held: HeldOut, encoded: tuple[str, ...], log: Path) -> HeldOut:
    """The record after the script ran and its output was checked."""
    left = [s for s in held.samples if s not in encoded]
    note = (
        f"{len(left)} of {len(held.samples)} held-out clip(s) not encoded ({', '.join(left[:3])}"
        f"{' ...' if len(left) > 3 else ''}): the script skipped them, see {log}"
        if left
        else ""
    )
    return HeldOut(
        file=held.file, root=held.root, samples=held.samples, done=True, encoded=encoded, note=note
    )


def failed(held: HeldOut, error: WizardError) -> HeldOut:
    """A run that failed: not done (the next `preprocess` runs it again), the reason kept."""
    return HeldOut(file=held.file, root=held.root, samples=held.samples, note=error.message)


def held_out_words(held: HeldOut | None) -> str | None:
    """plan.md's and `preprocess`'s sentence on the held-out clips; None for a run planned before."""
    if held is None:
        return None
    if held.file is None:
        return f"Held-out clips: none to preprocess: {held.note}."
    count = len(held.samples)
    if held.done:
        said = (
            f"Held-out clips: {len(held.encoded)} of {count} preprocessed into `{held.root}` "
            "(same model, buckets and trigger word; never trained on)."
        )
        return said + (f" {held.note}." if held.note else "")
    after = f" The last try failed: {held.note}." if held.note else ""
    return (
        f"Held-out clips: {count} in `{held.file}`, preprocessed with the full step into "
        f"`{held.root}` (never trained on).{after}"
    )
