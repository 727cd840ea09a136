"""`ltx-wizard preprocess RUN_DIR [--one-sample]`: the trainer's preprocessing for a run planned
from a dataset file, in the skill's order (one sample, autotune, then everything)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ltx_wizard.core.io.run_folder import CONFIG
from ltx_wizard.commands.common import add_gpu_source_args, print_json, run_until_signal
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.text_safety import clean_text
from ltx_wizard.core.io import run_folder

if TYPE_CHECKING:  # the record --json prints
    from ltx_wizard.core.preprocess.held_out import HeldOut


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "preprocess",
        help="encode the planned dataset: one sample first (for autotune), then all of it",
        description="Run the trainer's scripts/process_dataset.py with the arguments the plan "
        "decided, after the audio gate (before the first step: can the trainer's environment decode "
        "the clips' sound? if not, it stops with the fix, or --video-only trains without it). "
        "--one-sample encodes the first usable clip into RUN_DIR/overfit/.precomputed "
        "(autotune trains on it); without it, every clip is encoded into the data root, after "
        "autotune (refused before it, exit 2; --skip-autotune to train untuned). Outputs are verified; a step already done is not run again; an interrupted "
        "one resumes (the script skips what it wrote).",
    )
    p.add_argument("run_dir", metavar="RUN_DIR", help="a run folder planned with --dataset")
    p.add_argument(
        "--one-sample", action="store_true", help="only the one-sample preprocess (before autotune)"
    )
    p.add_argument(
        "--skip-autotune",
        action="store_true",
        help="the full preprocess without autotune, to train the planned config untuned "
        "(the wizard's Approve, skip); the one-sample preprocess still comes first",
    )
    p.add_argument(
        "--video-only",
        action="store_true",
        help="where the trainer's environment cannot decode the clips' sound: train video only "
        "(config.yaml's audio turned off before anything is encoded; asked once, before the "
        "first step); otherwise that step stops with the fix (uv sync, torchcodec)",
    )
    add_gpu_source_args(p)
    p.add_argument("--json", action="store_true", help="machine-readable result on stdout")
    p.set_defaults(func=run)


def _progress_printer():
    last = [""]

    def show(parser) -> None:
        line = parser.line()
        if line != last[0]:
            last[0] = line
            print(f"preprocess: {line}", file=sys.stderr, flush=True)

    return show


# what a signal's one line says of the preprocessor (commands/common.py run_until_signal)
STOPPED_WORDS = "the preprocessor was stopped with it; what it wrote is kept, and the same command resumes"


def _held_out_json(held: HeldOut | None) -> dict[str, object] | None:
    """preprocess.json's held-out record as --json prints it (None: planned before it existed)."""
    if held is None:
        return None
    return {
        "file": str(held.file) if held.file else None,
        "root": str(held.root) if held.root else None,
        "samples": list(held.samples),
        "encoded": list(held.encoded),
        "done": held.done,
        "note": held.note,
    }


def run(args: argparse.Namespace) -> int:
    from ltx_wizard.core.preprocess.preprocess_state import Step, read_state, write_state
    from ltx_wizard.core.preprocess.held_out import held_out_words
    from ltx_wizard.core.preprocess.preprocess_steps import STEP_TITLES, require_state, run_step

    run_dir = Path(args.run_dir).expanduser().resolve()
    if not (run_dir / CONFIG.rel).is_file():
        raise UsageError(f"{run_dir} is not a run folder written by `ltx-wizard plan`")
    state = require_state(run_dir)
    if getattr(args, "simulate", None) and not state.simulate:
        state = replace(state, simulate=True)  # simulated GPUs: no real script
        write_state(run_dir, state)
    step: Step = "one" if args.one_sample else "full"
    # used only where the run was planned on simulated GPUs (preprocess.json says)
    stand_in = args.stand_ins.for_simulated_run()
    title = STEP_TITLES[step]
    from ltx_wizard.core.prepare.audio_gate_check import audio_check
    from ltx_wizard.core.plan.next_steps import gpu_options

    result = run_until_signal(
        run_step(
            run_dir,
            step,
            on_progress=_progress_printer(),
            stand_in=stand_in,
            skip_autotune=args.skip_autotune,
            gpu_options=tuple(gpu_options(getattr(args, "simulate", None))),
            audio_check=audio_check(run_dir, stand_in),
            video_only=args.video_only,
        ),
        title,
        STOPPED_WORDS,
    )
    after = read_state(run_dir)
    from ltx_wizard.core.plan.refresh import refresh_plan_md

    problem = refresh_plan_md(run_dir)  # plan.md's Dataset section says how far it has got
    if problem is not None and run_folder.PLAN_RECORD.path(run_dir).is_file():
        print(f"warning: {problem}", file=sys.stderr)
    if args.json:
        print_json(
            {
                "step": step,
                "ran": result.ran,
                "warnings": list(result.warnings),
                "log": str(result.log) if result.log else None,
                "data_root": str(after.data_root) if after else None,
                "held_out": _held_out_json(after.held_out if after else None),
            }
        )
        return 0
    for warning in result.warnings:
        print(f"warning: {clean_text(warning)}", file=sys.stderr)
    if not result.ran:
        print(
            f"{title}: already done"
            + (
                " (the data root was verified and reused)"
                if step == "full" and after and after.reused
                else ""
            )
        )
        if result.held_out is not None:  # encoded now, the training data done before
            print(clean_text(held_out_words(result.held_out) or ""))
    else:  # what the step wrote and its check found, not the plan's verdict on the folder
        print(result.done_text())
    from ltx_wizard.core.plan.next_steps import remaining_steps

    # what is left, in order, with the simulated GPUs this run was planned on
    print(f"Next: {remaining_steps(run_dir, getattr(args, 'simulate', None))[0]}")
    return 0
