"""The two preprocessing steps of a run planned from a dataset file, in the skill's order.

One sample first (phases/preprocess-dataset.md, One-Sample): the first clip the trainer keeps,
at the planned bucket, into `<run>/overfit/.precomputed`, where autotune trains on it; then the
whole dataset into the data root. Each step is verified after it runs (every sample has every
file, latents of the bucket's shape, audio latents present for an audio recipe: the script
swallows audio-decode errors) and only then marked done; a step already done is not run again.
"""

from __future__ import annotations

import contextlib
import os
import shlex
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Mapping

from ltx_wizard.core.io.run_folder import CONFIG, LOGS_DIR
from ltx_wizard.core.io.bounded import read_text
from ltx_wizard.core.dataset.buckets import parse_buckets
from ltx_wizard.core.dataset.clip_probe import probe_clip
from ltx_wizard.core.dataset.rows import read_dataset_file
from ltx_wizard.core.base.errors import UsageError, WizardError
from ltx_wizard.core.base.stand_in import StandIn
from ltx_wizard.core.dataset.precomputed_check import Verification, verify_precomputed
from ltx_wizard.core.dataset.silent_clips import lacking_audio, silent_advice
from ltx_wizard.core.dataset.sources import audio_folder, required_folders
from ltx_wizard.core.dataset.loader_batches import samples_needed
from ltx_wizard.core.preprocess.audio_gate import AudioCheck, pass_audio_gate
from ltx_wizard.core.preprocess.preprocess_progress import ProgressParser
from ltx_wizard.core.preprocess.output_dirs import failure, remove_orphans, require_output_root
from ltx_wizard.core.preprocess.run import run_script
from ltx_wizard.core.preprocess.held_out import HeldOut, held_out_words, pending
from ltx_wizard.core.preprocess.held_out_step import held_out_warning, run_held_out
from ltx_wizard.core.preprocess.trigger_record import record_trigger, trigger_change
from ltx_wizard.core.preprocess.preprocess_state import (
    PreprocessState,
    Step,
    mark_done,
    one_sample_root,
    read_state,
    write_one_sample_file,
    write_state,
)
from ltx_wizard.core.io.run_meta import read_run_meta
from ltx_wizard.core.io.workspace import RunFolder, run_lock
from ltx_wizard.core.io.trainer_config import trainer_config
from ltx_wizard.core.io.yaml_patch import load_yaml

LOG_NAMES = {"one": "preprocess-one-sample.log", "full": "preprocess.log"}
STEP_TITLES = {"one": "one-sample preprocess", "full": "full preprocess"}


@dataclass(frozen=True)
class StepResult:
    step: Step
    ran: bool  # False: it was already done (or the data root was reused)
    verification: Verification | None
    warnings: tuple[str, ...] = ()
    log: Path | None = None
    samples: tuple[str, ...] = ()  # the samples the step encoded and the check found complete
    folders: tuple[str, ...] = ()  # the folders the recipe reads, each checked for every sample
    silent: int = 0  # of the samples, those without sound (no audio latents expected)
    held_out: HeldOut | None = None  # the held-out clips, when the full step encoded them now

    def done_text(self) -> str:
        """What the step did, from its check of what it wrote (never the plan-time verdict on a
        folder that was there before: "reused as it is" is said only where nothing ran)."""
        title = STEP_TITLES[self.step]
        held = f"\n{held_out_words(self.held_out)}" if self.held_out is not None else ""
        if not self.ran or self.verification is None:
            return f"{title}: already done{held}"
        folders = ", ".join(f"{f}/" for f in self.folders) or "every folder the recipe reads"
        quiet = f" ({self.silent} without sound: no audio latents)" if self.silent else ""
        return (
            f"{title}: done, verified: {len(self.samples)} sample(s) encoded into "
            f"{self.verification.root}, each with its file in {folders}{quiet}; latents of the "
            f"bucket's shape{held}"
        )


def require_state(run_dir: Path) -> PreprocessState:
    state = read_state(run_dir)
    if state is None:
        raise UsageError(
            f"{run_dir} was planned from a preprocessed data root, not a dataset "
            "file: there is nothing to preprocess"
        )
    return state


def first_samples(run_dir: Path) -> int:
    """How many clips the first preprocess encodes: one (the skill's), or on several GPUs one
    planned batch for each, so that autotune's confirmation on every GPU gets a batch at all
    (core/dataset/loader_batches.py: the trainer's loader yields nothing to fewer)."""
    text = read_text(CONFIG.path(run_dir), what="run config")
    batch = trainer_config(load_yaml(text)).optimization.batch_size
    batch = batch if batch is not None and batch > 0 else 1
    gpus = read_run_meta(run_dir).num_gpus or 1
    return 1 if gpus <= 1 else samples_needed(batch, gpus)


def run_strategy(run_dir: Path) -> Mapping[str, Any] | None:
    text = read_text(CONFIG.path(run_dir), what="run config")
    return trainer_config(load_yaml(text)).training_strategy


async def run_step(
    run_dir: Path,
    step: Step,
    *,
    env: Mapping[str, str] | None = None,
    on_progress: Callable[[ProgressParser], None] = lambda p: None,
    stand_in: StandIn | None = None,
    skip_autotune: bool = False,
    gpu_options: tuple[str, ...] = (),
    audio_check: AudioCheck | None = None,
    video_only: bool = False,
) -> StepResult:
    """Run `step` unless it is done; verify what it wrote; mark it done. A run planned on
    simulated GPUs preprocesses with `stand_in` (the caller's, base/stand_in.py). Holds the run
    lock throughout: a second preprocess, a plan --force or an autotune of this run waits.
    `skip_autotune`: the user chose to train untuned (the TUI's Approve, skip; the CLI's
    --skip-autotune); else the full step waits for autotune. `gpu_options`: what the commands
    a refusal names need to see this run's GPUs (`--simulate PRESET`). `audio_check` decodes a
    clip's sound in the trainer's environment for the audio gate (audio_gate.py), passed before
    the first step; `video_only`: the user's consent to train without audio there."""
    run_dir = Path(run_dir)
    require_state(run_dir)
    with run_lock(run_dir):
        state = require_state(run_dir)  # read under the lock: another step may just have ended
        refusal = order_refusal(run_dir, step, state, skip_autotune=skip_autotune, gpu_options=gpu_options)
        if refusal is not None:
            raise UsageError(refusal)
        if not state.done(step):
            await pass_audio_gate(
                run_dir, state, step, audio_check, video_only=video_only, gpu_options=gpu_options
            )
        return await _run_step_locked(run_dir, step, env, on_progress, stand_in)


def order_refusal(
    run_dir: Path,
    step: Step,
    state: PreprocessState,
    *,
    skip_autotune: bool = False,
    gpu_options: tuple[str, ...] = (),
) -> str | None:
    """Why `step` may not run yet, in the skill's order, with the command that comes first; None
    when it may. The full step waits for autotune: autotune's trials show in minutes, on the one
    sample, whether this bucket trains on the GPU at all; a full preprocess before them could
    spend hours encoding every clip at a bucket that is then planned again (its latents refused
    for the new plan). Its output does not depend on autotune's winner, so a user who chooses to
    train untuned may go on (`skip_autotune`)."""
    if step != "full" or state.done(step):
        return None
    run = str(Path(run_dir))
    if not state.one_sample_done:
        return (
            "the one-sample preprocess and autotune come first (the skill's order): run "
            f"`{shlex.join(['ltx-wizard', 'preprocess', run, '--one-sample', *gpu_options])}`"
        )
    if skip_autotune or RunFolder(Path(run_dir)).autotune_record.is_file():
        return None
    autotune = shlex.join(["ltx-wizard", "autotune", run, *gpu_options])
    skip = shlex.join(["ltx-wizard", "preprocess", run, "--skip-autotune", *gpu_options])
    return (
        "autotune comes before the full preprocess (the skill's order: its trials on the one "
        "sample show in minutes whether this bucket trains on your GPU, before hours of "
        f"encoding at it): run `{autotune}`; or, to train untuned, `{skip}`"
    )


async def _run_step_locked(
    run_dir: Path,
    step: Step,
    env: Mapping[str, str] | None,
    on_progress: Callable[[ProgressParser], None],
    stand_in: StandIn | None,
) -> StepResult:
    state = require_state(run_dir)
    result = (
        StepResult(step, ran=False, verification=None)
        if state.done(step)
        else await _encode(run_dir, step, state, env, on_progress, stand_in)
    )
    # the held-out clips after the full step (or left by a run planned before them, or a failure)
    return await _with_held_out(run_dir, step, result, env, on_progress, stand_in)


async def _encode(
    run_dir: Path,
    step: Step,
    state: PreprocessState,
    env: Mapping[str, str] | None,
    on_progress: Callable[[ProgressParser], None],
    stand_in: StandIn | None,
) -> StepResult:
    """The step's script on its clips, its output verified, the step marked done."""
    output = state.data_root if step == "full" else one_sample_root(run_dir)
    require_output_root(run_dir, output, one_sample=step == "one")
    ds = read_dataset_file(state.dataset_file)
    samples, dataset = state.samples, state.dataset_file
    # the one sample: the first kept clip with sound when the recipe trains audio
    choices = tuple(s for s in state.samples if s not in state.silent) or state.samples
    scratch = None
    if step == "one":
        dataset, samples = write_one_sample_file(ds, choices, first_samples(run_dir))
        scratch = dataset
    log = LOGS_DIR.path(run_dir) / LOG_NAMES[step]
    code = None
    try:
        # a changed trigger word re-encodes the data root (core/preprocess/trigger_record.py)
        again = step == "full" and trigger_change(output, state.spec.lora_trigger) is not None
        code, parser = await run_script(
            run_dir,
            state,
            dataset,
            output,
            log,
            env,
            on_progress,
            overwrite=step == "one" or again,
            stand_in=stand_in,
        )
    finally:
        if scratch is not None:
            with contextlib.suppress(OSError):
                os.unlink(scratch)  # the skill: scratch, never left in the dataset folder
        if code != 0:  # failed, stopped or cancelled: no half-written latents left behind
            remove_orphans(output)
    if code != 0:
        raise failure(STEP_TITLES[step], code, log, output)
    verification = _verify(run_dir, state, output, samples, log, step, parser)
    if step == "full":  # the data root says which trigger word its embeddings carry
        record_trigger(output, state.spec.lora_trigger)
    mark_done(run_dir, step)
    strategy = run_strategy(run_dir)
    return StepResult(
        step,
        ran=True,
        verification=verification,
        warnings=tuple(_reconcile(parser)),
        log=log,
        samples=samples,
        folders=tuple(required_folders(strategy)),
        silent=sum(s in state.silent for s in samples) if audio_folder(strategy) else 0,
    )


async def _with_held_out(
    run_dir: Path,
    step: Step,
    result: StepResult,
    env: Mapping[str, str] | None,
    on_progress: Callable[[ProgressParser], None],
    stand_in: StandIn | None,
) -> StepResult:
    """After the full step: the held-out clips into their own folder (held_out_step.py)."""
    state = require_state(run_dir)
    if step != "full" or not pending(state.held_out):
        return result
    held = await run_held_out(run_dir, run_strategy(run_dir), env, on_progress, stand_in)
    said = held_out_warning(held)
    return replace(result, held_out=held, warnings=result.warnings + ((said,) if said else ()))


def _verify(
    run_dir: Path,
    state: PreprocessState,
    output: Path,
    samples: tuple[str, ...],
    log: Path,
    step: Step,
    parser: ProgressParser,
) -> Verification:
    strategy = run_strategy(run_dir)
    check = verify_precomputed(
        output, strategy, samples, parse_buckets(state.spec.buckets), silent=state.silent
    )
    if check.mismatch:
        raise WizardError(
            f"the {STEP_TITLES[step]} wrote data that does not match the plan: "
            f"{check.mismatch} (output in {log})"
        )
    if not check.complete:
        _require_sound(run_dir, state, output, samples, log, step, parser, strategy, check)
        gaps = "; ".join(f"{folder}/ lacks {n} of {len(samples)}" for folder, n in check.missing)
        raise WizardError(
            f"the {STEP_TITLES[step]} left samples incomplete ({gaps}): the script skips clips "
            f"quietly (too short, unreadable, or no audio decoder); see {log}, fix the clips or "
            'the audio setup (uv run python -c "import torchaudio"), then run it again'
        )
    return check


def _require_sound(
    run_dir: Path,
    state: PreprocessState,
    output: Path,
    samples: tuple[str, ...],
    log: Path,
    step: Step,
    parser: ProgressParser,
    strategy: Mapping[str, Any] | None,
    check: Verification,
) -> None:
    """Only audio latents missing: name those clips and the ways on (dataset/silent_clips.py);
    they are recorded as silent, so that running the step again goes on without them."""
    audio = audio_folder(strategy)
    if audio is None or [f for f, _ in check.missing] != [audio]:
        return
    ds = read_dataset_file(state.dataset_file)
    lacking = lacking_audio(ds, output, audio, samples)
    if not lacking:
        return
    heard = [clip for clip, _ in lacking if probe_clip(ds.folder / clip).has_audio]
    if heard:  # sound there, not decoded: never recorded as silent (the audio gate's own case)
        raise WizardError(
            f"the {STEP_TITLES[step]} wrote no audio latents for {len(heard)} clip(s) that have "
            f"sound: {', '.join(heard[:3])}{' ...' if len(heard) > 3 else ''} (the trainer's "
            f"environment did not decode it; {log}): take them out of {state.dataset_file}, or "
            "train video only (plan the run again with --video-only)"
        )
    silent = tuple(dict.fromkeys(state.silent + tuple(s for _, s in lacking)))
    write_state(run_dir, replace(state, silent=silent))
    rerun = (
        f"ltx-wizard preprocess {run_dir}{' --one-sample' if step == 'one' else ''}"
        f"{' --simulate PRESET' if state.simulate else ''}"
    )
    left = [s for s in state.samples if s not in silent]
    reported = parser.audio_counts[1] if parser.audio_counts else None
    raise WizardError(
        silent_advice(
            lacking,
            step=STEP_TITLES[step],
            reported=reported,
            dataset=state.dataset_file,
            log=log,
            rerun=rerun if left else None,
        )
    )


def _reconcile(parser: ProgressParser) -> list[str]:
    out = [f"the script skipped {path} ({frames} frames)" for path, frames in parser.skipped]
    if parser.audio_counts is not None and parser.audio_counts[1]:
        out.append(f"{parser.audio_counts[1]} video(s) had no audio track")
    return out
