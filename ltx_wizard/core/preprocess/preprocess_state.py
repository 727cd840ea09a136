"""A run planned from a dataset file: what to preprocess, where, and how far it has got.

`<run>/preprocess.json` records the decided command parts and two steps, in the skill's order:
the one-sample preprocess into `<run>/overfit/.precomputed` (autotune's trial data), then the
full one into the data root. Each step is marked done only after its output was verified, so an
interrupted step is simply run again (the script skips samples it already wrote).

A frozen record, declared once in the run folder's codec (core/io/run_codec.py: msgspec, a few ms
to import, so `plan`, which writes it, pays for no pydantic): strict types, unknown fields refused.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Literal

from ltx_wizard.core.io.run_folder import OVERFIT_DIR
from ltx_wizard.core.base.records import record
from ltx_wizard.core.dataset.rows import DatasetFile
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.io import run_folder
from ltx_wizard.core.io.run_codec import declare
from ltx_wizard.core.preprocess.held_out import HeldOut
from ltx_wizard.core.preprocess.preprocess_command import PreprocessSpec
from ltx_wizard.core.io.safe_fs import write_text

STATE_NAME = run_folder.PREPROCESS_STATE.rel
# The skill's one-sample metadata file: beside dataset.json, so the media paths stay relative
# and the outputs are named as in the full run (phases/preprocess-dataset.md, One-Sample).
ONE_SAMPLE_NAME = "_one_sample.json"
Step = Literal["one", "full"]


@record
class PreprocessState:
    dataset_file: Path
    data_root: Path  # where the full preprocess writes (the config's preprocessed_data_root)
    spec: PreprocessSpec
    trainer_dir: Path
    simulate: bool = False
    samples: tuple[str, ...]  # each kept row's .pt name, in file order
    silent: tuple[str, ...] = ()  # those of clips without sound: no audio latents expected
    one_sample_done: bool = False
    full_done: bool = False
    reused: bool = False  # the data root was verified complete at plan time
    # the audio gate (audio_gate.py), decided once before any step: what was found, or None
    audio_gate: str | None = None
    video_only: bool = False  # the user chose video only there: config.yaml trains no audio
    # the held-out clips' own latents (held_out.py); None: planned before they were preprocessed
    held_out: HeldOut | None = None

    def done(self, step: Step) -> bool:
        # a verified, reused data root needs neither step: autotune links its samples
        if self.reused:
            return True
        return self.one_sample_done if step == "one" else self.full_done


STATE_FILE = declare(run_folder.PREPROCESS_STATE, PreprocessState)


def state_path(run_dir: Path) -> Path:
    return run_folder.PREPROCESS_STATE.path(run_dir)


def one_sample_root(run_dir: Path) -> Path:
    return OVERFIT_DIR.path(run_dir) / ".precomputed"


def read_state(run_dir: Path) -> PreprocessState | None:
    """None for a run planned from a preprocessed data root; a refused one names the file."""
    return STATE_FILE.read(run_dir)


def write_state(run_dir: Path, state: PreprocessState) -> Path:
    return STATE_FILE.write(run_dir, state)


def mark_done(run_dir: Path, step: Step) -> PreprocessState:
    state = read_state(run_dir)
    assert state is not None
    state = replace(state, one_sample_done=True) if step == "one" else replace(state, full_done=True)
    write_state(run_dir, state)
    return state


def write_one_sample_file(
    ds: DatasetFile, samples: tuple[str, ...], count: int = 1
) -> tuple[Path, tuple[str, ...]]:
    """The first `count` rows the trainer keeps (file order), copied verbatim into
    `_one_sample.json` beside the dataset file; returns the file and the samples' .pt names.
    One row, as the skill has it; on several GPUs one batch for each (preprocess/preprocess_steps.py)."""
    wanted = set(samples)
    rows = [r for r in ds.rows if ds.output_rel(r) in wanted][: max(count, 1)]
    if not rows:
        raise UsageError(f"dataset file {ds.path}: no clip the trainer keeps: fix the dataset")
    path = ds.folder / ONE_SAMPLE_NAME
    write_text(path, json.dumps(rows, indent=2, ensure_ascii=False) + "\n")
    return path, tuple(ds.output_rel(r) for r in rows)
