"""`ltx-wizard autotune RUN_DIR`: short trainer trials that tune the planned config, headless."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from ltx_wizard.core.io.run_folder import CONFIG
from ltx_wizard.commands.common import (
    add_gpu_source_args,
    assessment_from_args,
    print_json,
    require_known_tier,
)
from ltx_wizard.core.tuning.batch_rule import ALLOW_FLAG
from ltx_wizard.core.tuning.results import AutotuneSummary
from ltx_wizard.core.tuning.schedule import MAX_TRIALS
from ltx_wizard.core.tuning.trial_config import TRIAL_STEPS
from ltx_wizard.core.proc.child import TEARDOWN_GRACE_S
from ltx_wizard.core.autotune.outputs.presenter import (
    confirmation_line,
    human_line,
    patched_text,
    winner_brief,
)
from ltx_wizard.core.base.errors import EXIT_FAILURE, GateStop, UsageError
from ltx_wizard.core.base.text_safety import clean_text


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "autotune",
        help="run short trials and patch the fastest setting that fits into config.yaml",
        description=f"Run up to {MAX_TRIALS} {TRIAL_STEPS}-step trials (training only: no "
        "validation, no text encoder) of the planned config on a few linked samples, each the "
        "best so far plus one change (quantization off, AdamW, gradient checkpointing off on "
        f"80GB+; a larger batch only where the effective batch stays as planned, or with "
        f"{ALLOW_FLAG}), then confirm the winner once with its own validation, and patch it into "
        "RUN_DIR/config.yaml. Results go to RUN_DIR/autotune.log; an interrupted run resumes.",
    )
    parser.add_argument("run_dir", metavar="RUN_DIR", help="a run folder written by `ltx-wizard plan`")
    add_gpu_source_args(parser)
    parser.add_argument(
        "--trainer-cmd",
        metavar="CMD",
        help="replace the trainer command prefix (split like a shell, never run "
        "through one); CONFIG and --disable-progress-bars are appended",
    )
    parser.add_argument("--trainer-root", metavar="DIR", help="your LTX-2 checkout")
    parser.add_argument(
        "--max-trials", type=int, default=5, metavar="N", help="trials to run at most (default 5)"
    )
    parser.add_argument(
        "--idle-timeout",
        type=float,
        default=900.0,
        metavar="S",
        help="seconds without trainer output before a trial counts as hung "
        "(default 900: loading and quantizing take minutes)",
    )
    parser.add_argument(
        "--teardown-grace",
        type=float,
        default=TEARDOWN_GRACE_S,
        metavar="S",
        help="seconds the launcher gets after SIGTERM to stop its ranks before "
        f"every survivor is killed (default {TEARDOWN_GRACE_S:g})",
    )
    parser.add_argument(
        "--allow-batch-change",
        action="store_true",
        help="also try a larger batch when gradient accumulation cannot absorb it "
        "(the effective batch changes); a win rescales optimization.steps so the "
        "samples seen stay as planned. Without it such a trial is not run",
    )
    parser.add_argument(
        "--accept-risk",
        action="store_true",
        help="go on below the 32 GB minimum (implied when the plan accepted the risk)",
    )
    parser.add_argument("--json", action="store_true", help="machine-readable result on stdout")
    parser.set_defaults(func=run)


def _check_run_dir(path: str) -> Path:
    run_dir = Path(path).expanduser().resolve()
    if not run_dir.is_dir():
        raise UsageError(f"run folder {run_dir} does not exist: run `ltx-wizard plan` first")
    if not (run_dir / CONFIG.rel).is_file():
        raise UsageError(f"{run_dir} has no config.yaml: it is not a run folder written by `ltx-wizard plan`")
    return run_dir


async def _run(engine) -> AutotuneSummary:
    from ltx_wizard.core.io.terminal_watch import stream_fd, watch_terminal
    from ltx_wizard.core.proc.registry import kill_all_now
    from ltx_wizard.core.proc.signals import install_on_loop

    # SIGINT, SIGHUP (an SSH drop) and SIGTERM stop the trial's process group, then end autotune.
    uninstall = install_on_loop(asyncio.get_running_loop(), lambda signum: engine.cancel())
    # A wizard stuck writing progress to a terminal that is gone still leaves (and frees the lock).
    watch_terminal(stream_fd(sys.stderr), grace_s=30.0, before_exit=kill_all_now)
    try:
        return await engine.run()
    finally:
        uninstall()


def trial_lines(summary: AutotuneSummary) -> list[str]:
    """A line per trial and per confirmation: a trial's reason can quote the trainer's output."""
    lines = [human_line(trial) for trial in summary.trials]
    return [clean_text(line) for line in lines + [confirmation_line(c) for c in summary.confirmations]]


def run(args: argparse.Namespace) -> int:
    from ltx_wizard.core.autotune.sweep.engine import AutotuneEngine
    from ltx_wizard.core.autotune.trials.trial_command import split_trainer_cmd

    run_dir = _check_run_dir(args.run_dir)
    if not 1 <= args.max_trials <= 50:
        raise UsageError(f"--max-trials {args.max_trials}: give at least 1 and at most 50")
    if not 1 <= args.idle_timeout <= 86400:  # also refuses nan and inf
        raise UsageError(f"--idle-timeout {args.idle_timeout:g}: give seconds from 1 to 86400")
    if not 0 < args.teardown_grace <= 3600:  # also refuses nan and inf
        raise UsageError(f"--teardown-grace {args.teardown_grace:g}: give seconds above 0, at most 3600")
    trainer_cmd = split_trainer_cmd(args.trainer_cmd) if args.trainer_cmd is not None else None
    assessment = assessment_from_args(args)
    require_known_tier(assessment)
    from ltx_wizard.core.io.run_meta import read_run_meta
    from ltx_wizard.core.plan.run_plan import gate_stop_message

    if assessment.gate_blocked and not (args.accept_risk or read_run_meta(run_dir).accepted_risk):
        raise GateStop(gate_stop_message(assessment.gate_message))
    from ltx_wizard.commands.progress import autotune_progress

    progress = autotune_progress(json_mode=args.json)  # live on a terminal, plain lines otherwise
    try:
        engine = AutotuneEngine(
            run_dir,
            probe=assessment.probe,
            assessment=assessment,
            trainer_cmd=trainer_cmd,
            stand_in=args.stand_ins.chosen,
            max_trials=args.max_trials,
            trainer_root=Path(args.trainer_root).expanduser() if args.trainer_root else None,
            on_event=progress,
            idle_timeout_s=args.idle_timeout,
            grace_s=args.teardown_grace,
            allow_batch_change=args.allow_batch_change,
        )
        summary = asyncio.run(_run(engine))
    finally:
        progress.close()  # the terminal is plain again before the report and any error line
    if args.json:
        print_json(summary.contract_json())
    else:
        print(f"Autotune of {run_dir}:")
        for line in trial_lines(summary):
            print("  " + line)
        print(f"Stopped: {clean_text(summary.stop_reason)}")
        if summary.schedule_note:
            print(f"Schedule: {summary.schedule_note}")
        if summary.winner is not None:
            print(f"Winner: {winner_brief(summary)}; {patched_text(summary)}")
        from ltx_wizard.core.launch.script import script_path
        from ltx_wizard.core.plan.next_steps import remaining_steps

        if script_path(run_dir).is_file():
            steps = remaining_steps(run_dir, getattr(args, "simulate", None))
            print("Next, in order:" if len(steps) > 1 else "Start training:")
            for step in steps:
                print(f"  {step}")
            print(f"  (launch.sh runs: {summary.launch_line})")
        else:
            print(f"Launch: {summary.launch_line}")
    if summary.stop_reason == "cancelled":
        return 130
    if summary.setup_failure:
        print(f"ltx-wizard: autotune stopped: {clean_text(summary.setup_failure)}", file=sys.stderr)
        return EXIT_FAILURE
    if summary.winner is None:
        print(
            "ltx-wizard: no trial finished cleanly (reasons above and in autotune.log): fix "
            "the trainer setup, then run autotune again",
            file=sys.stderr,
        )
        return EXIT_FAILURE
    return 0
