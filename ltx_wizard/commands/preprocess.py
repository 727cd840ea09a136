"""`ltx-wizard preprocess RUN_DIR [--one-sample]`: the trainer's preprocessing for a run planned
from a dataset file, in the skill's order (one sample, autotune, then everything)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from dataclasses import replace
from pathlib import Path

from ltx_wizard.commands.common import add_gpu_source_args, print_json
from ltx_wizard.core.base.errors import UsageError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "preprocess",
        help="encode the planned dataset: one sample first (for autotune), then all of it",
        description="Run the trainer's scripts/process_dataset.py with the arguments the plan "
        "decided. --one-sample encodes the first usable clip into RUN_DIR/overfit/.precomputed "
        "(autotune trains on it); without it, every clip is encoded into the data root (after "
        "autotune). Outputs are verified; a step already done is not run again; an interrupted "
        "one resumes (the script skips what it wrote).",
    )
    p.add_argument("run_dir", metavar="RUN_DIR", help="a run folder planned with --dataset")
    p.add_argument("--one-sample", action="store_true",
                   help="only the one-sample preprocess (before autotune)")
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


def run(args: argparse.Namespace) -> int:
    from ltx_wizard.core.preprocess.state import read_state, write_state
    from ltx_wizard.core.preprocess.steps import STEP_TITLES, require_state, run_step

    run_dir = Path(args.run_dir).expanduser().resolve()
    if not (run_dir / "config.yaml").is_file():
        raise UsageError(f"{run_dir} is not a run folder written by `ltx-wizard plan`")
    state = require_state(run_dir)
    if getattr(args, "simulate", None) and not state.simulate:
        state = replace(state, simulate=True)  # simulated GPUs: no real script
        write_state(run_dir, state)
    step = "one" if args.one_sample else "full"
    from ltx_wizard.demo.sim.stand_in import SimulatedTrainer

    # used only where the run was planned on simulated GPUs (preprocess.json says)
    stand_in = SimulatedTrainer(getattr(args, "simulate", None) or "h100")
    result = asyncio.run(run_step(run_dir, step, on_progress=_progress_printer(), stand_in=stand_in))
    state = read_state(run_dir)
    title = STEP_TITLES[step]
    if args.json:
        print_json({"step": step, "ran": result.ran, "warnings": list(result.warnings),
                    "log": str(result.log) if result.log else None,
                    "data_root": str(state.data_root) if state else None})
        return 0
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if not result.ran:
        print(f"{title}: already done" + (" (the data root was verified and reused)"
                                          if step == "full" and state and state.reused else ""))
    else:
        print(f"{title}: done, verified ({result.verification.describe() if result.verification else ''})")
    nxt = (f"ltx-wizard autotune {run_dir}" if step == "one" else
           f"bash {run_dir / 'launch.sh'}")
    print(f"Next: {nxt}")
    return 0
