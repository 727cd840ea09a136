"""The audio gate of a run planned from clips: decided once, before any preprocessing.

process_videos.py `_load_audio_from_file` swallows every error of torchaudio.load and returns None:
where the trainer's environment cannot decode sound (no torchcodec, no FFmpeg libraries), every
clip is encoded without audio latents, and an audio recipe's trainer then finds no sample it can
train on (datasets.py PrecomputedDataset._discover_samples: "No valid samples found"). So before
the first step encodes anything, one clip with sound is decoded in that environment (the caller's
check: core/prepare/audio_env.py for the real one, the stand-in's for simulated GPUs). It decodes:
the run goes on, and the verdict is recorded in preprocess.json. It does not: the run stops with
the fix, or, with the user's consent (`video_only`), config.yaml's audio is turned off as the
trainer supports it (core/dataset/sources.py video_only_change) and the script skips audio.
"""

from __future__ import annotations

import shlex
from dataclasses import replace
from pathlib import Path
from typing import Any, Awaitable, Callable, Mapping, Protocol

from ltx_wizard.core.io.run_folder import CONFIG
from ltx_wizard.core.base.errors import UsageError, WizardError
from ltx_wizard.core.dataset.clip_probe import probe_clip
from ltx_wizard.core.dataset.rows import read_dataset_file
from ltx_wizard.core.dataset.sources import audio_folder, video_only_change
from ltx_wizard.core.io.bounded import read_text
from ltx_wizard.core.io.workspace import atomic_write_text
from ltx_wizard.core.io.trainer_config import trainer_config
from ltx_wizard.core.io.yaml_patch import load_yaml, patch_yaml_text
from ltx_wizard.core.preprocess.preprocess_state import PreprocessState, Step, write_state


class Decode(Protocol):
    """What a check found (core/prepare/audio_env.py AudioDecode has these, read-only)."""

    @property
    def ok(self) -> bool: ...
    @property
    def detail(self) -> str: ...
    @property
    def fix(self) -> str: ...


AudioCheck = Callable[[Path], Awaitable[Decode]]


class AudioGateClosed(WizardError):
    """The trainer's environment cannot decode the clips' sound; `video_only`: the recipe can
    train without it (the consent the user may give)."""

    def __init__(self, message: str, *, video_only: bool) -> None:
        super().__init__(message)
        self.video_only = video_only


def _config(run_dir: Path) -> tuple[str, Mapping[str, Any] | None]:
    text = read_text(CONFIG.path(run_dir), what="run config")
    return text, trainer_config(load_yaml(text)).training_strategy


def gate_clip(run_dir: Path, state: PreprocessState) -> Path | None:
    """The clip the gate decodes: the first kept one with an audio stream (read with PyAV as the
    trainer reads it), when config.yaml trains audio and the gate is still open; else None."""
    _, strategy = _config(run_dir)
    if state.audio_gate is not None or audio_folder(strategy) is None:
        return None
    ds = read_dataset_file(state.dataset_file)
    video = ds.roles["video"]
    wanted = [s for s in state.samples if s not in state.silent]
    clips = {ds.output_rel(r): ds.folder / str(r[video]).strip() for r in ds.rows}
    for sample in wanted:
        clip = clips.get(sample)
        if clip is not None and probe_clip(clip).has_audio:
            return clip
    return None  # no clip with sound: nothing to decode (the trainer leaves silent clips out)


async def pass_audio_gate(
    run_dir: Path,
    state: PreprocessState,
    step: Step,
    check: AudioCheck | None,
    *,
    video_only: bool = False,
    gpu_options: tuple[str, ...] = (),
) -> PreprocessState:
    """The state once the gate is passed (recorded); raises AudioGateClosed with the fix."""
    clip = gate_clip(run_dir, state)
    if clip is None:
        if video_only and state.audio_gate is not None and not state.video_only:
            raise UsageError("the audio gate was decided already: plan the run again with --video-only")
        return state
    if check is None:
        raise WizardError("the audio gate needs the trainer environment's audio check")
    found = None if video_only else await check(clip)
    if found is not None and found.ok:
        state = replace(state, audio_gate=f"decodes audio ({found.detail}; checked on {clip.name})")
        write_state(run_dir, state)
        return state
    text, strategy = _config(run_dir)
    change = video_only_change(strategy)
    if found is not None:
        raise AudioGateClosed(
            _closed_text(run_dir, step, found, change is not None, gpu_options), video_only=change is not None
        )
    if change is None:
        raise UsageError("this recipe cannot train without audio (sound is its only target or an input)")
    # the user's consent: config.yaml trains video only; the script is told to skip audio
    atomic_write_text(CONFIG.path(run_dir), patch_yaml_text(text, dict([change])), root=run_dir)
    state = replace(
        state,
        audio_gate=f"video only, by your choice ({change[0]}: {change[1]!r} in config.yaml)",
        video_only=True,
        spec=replace(state.spec, skip_audio=True),
    )
    write_state(run_dir, state)
    return state


def _closed_text(
    run_dir: Path, step: Step, found: Decode, can_drop: bool, gpu_options: tuple[str, ...]
) -> str:
    again = ["ltx-wizard", "preprocess", str(run_dir), *(["--one-sample"] if step == "one" else [])]
    rerun = shlex.join([*again, *gpu_options])
    text = (
        f"the trainer's environment cannot decode the clips' sound ({found.detail}): its "
        "preprocessing would write no audio latents, and this recipe's trainer would find no "
        f"sample to train on. Nothing was encoded. Fix: {found.fix}; then run `{rerun}` again"
    )
    if not can_drop:
        return text
    video_only = shlex.join([*again, "--video-only", *gpu_options])
    return text + f"; or train video only (config.yaml's audio turned off): `{video_only}`"
