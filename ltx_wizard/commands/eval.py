"""`ltx-wizard eval RUN`: render the trained LoRA against the skill's three prompt categories, with
and without the LoRA, through the trainer's validation (and ltx-pipelines where the checkout has
it); files laid out under RUN/outputs/eval with prompts.json. Shows and lays out; judges nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from pathlib import Path

from ltx_wizard.core.io.run_folder import require_config
from ltx_wizard.commands.common import add_gpu_source_args
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.text_safety import clean_block

EXIT_STOPPED = 130


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "eval",
        help="render the trained LoRA for your own eyes: in-distribution, out-of-distribution "
        "and held-out prompts, with and without the LoRA",
        description="Post-training evaluation (the train-model skill's Phase 9): 3 training "
        "captions and up to 5 held-out ones (seed 42) and your own prompts (or 3 generic ones "
        "with the trigger word), each rendered with and without the LoRA at the same seed and "
        "settings, through a validate-only trainer run (RUN/eval-config.yaml) launched as the "
        "training was, and through the checkout's ltx-pipelines where it is there (the mode's "
        "entry point: ti2vid_one_stage for text- and image-to-video, ic_lora, a2vid_two_stage, "
        "t2a_one_stage, fed each prompt's own dataset row's reference, first frame or sound, as the trainer's "
        "samples are, even when the run was planned without validation media). Outputs: "
        "RUN/outputs/eval/<category>/NN_<slug>.mp4 and prompts.json. Exit 0 done, 1 failed, 2 bad "
        "input, 130 stopped.",
    )
    p.add_argument("run", metavar="RUN", help="the run folder")
    p.add_argument(
        "--prompt",
        action="append",
        default=[],
        metavar="TEXT",
        help="an out-of-distribution prompt of yours (repeat it for more)",
    )
    p.add_argument("--checkpoint", metavar="FILE", help="a saved checkpoint instead of the final one")
    p.add_argument(
        "--dataset",
        metavar="FILE",
        help="the training dataset file (captions), when the run folder does not record it",
    )
    p.add_argument("--trigger", metavar="WORD", help="the LoRA's trigger word, when not recorded")
    p.add_argument("--no-base", action="store_true", help="skip the renders without the LoRA")
    p.add_argument(
        "--production",
        choices=("auto", "yes", "no"),
        default="auto",
        help="also render through ltx-pipelines: auto (where it is there and fits), "
        "yes (fail if it cannot), no",
    )
    p.add_argument("--quantization", choices=("fp8-cast",), help="ltx-pipelines' --quantization")
    p.add_argument("--offload", choices=("cpu", "disk"), help="ltx-pipelines' --offload")
    p.add_argument(
        "--background",
        action="store_true",
        help="start it in the background (log: RUN/logs/eval.log) and return",
    )
    p.add_argument("--stop", action="store_true", help="stop the evaluation running for RUN")
    p.add_argument("--yes", action="store_true", help="start without asking")
    p.add_argument("--json", action="store_true", help="the result as JSON on stdout")
    p.add_argument("--job", action="store_true", help=argparse.SUPPRESS)  # the detached process
    add_gpu_source_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ltx_wizard.core.evaluation import job_process
    from ltx_wizard.core.evaluation.job import read_job

    run_dir = Path(args.run).expanduser().absolute()
    require_config(run_dir)
    if args.stop:
        stopped = job_process.stop_job_now(run_dir)
        print("evaluation stopped" if stopped else f"no evaluation of {run_dir} is running")
        return 0
    if args.job:
        return _carry_out(run_dir, read_job(run_dir), args)
    from ltx_wizard.core.evaluation.request import plan_evaluation

    planned = plan_evaluation(run_dir, args.stand_ins, _request(args))
    job = planned.job
    if not args.json:
        print(clean_block("\n".join(planned.lines)))
    _confirm(args)
    job_process.check_free(run_dir)
    from ltx_wizard.core.evaluation.job import write_job

    write_job(run_dir, job)
    if args.background:
        pid, log = job_process.start_job(
            run_dir, [sys.executable, "-m", "ltx_wizard", "eval", str(run_dir), "--job"]
        )
        print(
            f"evaluation runs in the background: pid {pid}, log {log}; "
            f"stop it with: ltx-wizard eval {run_dir} --stop"
        )
        return 0
    return _carry_out(run_dir, job, args)


def _request(args: argparse.Namespace):
    """The options as the core's request: the core decides everything from it."""
    from ltx_wizard.core.evaluation.request import EvalRequest

    return EvalRequest(
        checkpoint=Path(args.checkpoint) if args.checkpoint else None,
        prompts=tuple(args.prompt),
        dataset=Path(args.dataset) if args.dataset else None,
        trigger=args.trigger,
        like_for_like=not args.no_base,
        production=args.production,
        quantization=args.quantization,
        offload=args.offload,
    )


def _confirm(args: argparse.Namespace) -> None:
    if args.yes:
        return
    if not sys.stdin.isatty():
        raise UsageError("eval asks before it starts the GPUs: pass --yes to start without asking")
    answer = input("Start the evaluation? [y/N] ").strip().lower()
    if answer not in ("y", "yes"):  # your no: a stop by the user (130, the README's list)
        from ltx_wizard.core.base.errors import UserStop

        raise UserStop("not started: nothing was rendered")


def _carry_out(run_dir: Path, job, args: argparse.Namespace) -> int:
    from ltx_wizard.core.evaluation import job_process
    from ltx_wizard.core.evaluation.job import LOG_REL
    from ltx_wizard.core.evaluation.job_runner import EvalRunner
    from ltx_wizard.core.io.safe_fs import open_append

    with job_process.claimed(run_dir):  # one evaluation per run: a second start waits, then is refused
        job_process.check_free(run_dir)
        job_process.record_self(run_dir)
    from ltx_wizard.core.proc.signals import install_blocking

    stop = threading.Event()
    # SIGINT, SIGTERM, SIGHUP: the running render is stopped (core/proc's one handler), then
    # the runner records the evaluation as stopped
    install_blocking(on_signal=lambda signum: stop.set())
    quiet = args.job or args.json
    with open_append(run_dir / LOG_REL, root=run_dir) as log:
        runner = EvalRunner(
            run_dir,
            job,
            log,
            stop=stop,
            say=None if quiet else lambda t: print(f"eval: {t}", file=sys.stderr, flush=True),
        )
        state = runner.run()
    _refresh_summary(run_dir)
    if args.json:
        print(
            json.dumps(
                {
                    "state": state.state,
                    "error": state.error,
                    "renders": sorted(runner.manifest.renders),
                    "notes": job.notes,
                },
                indent=2,
                ensure_ascii=False,
            )
        )
    elif not args.job:
        from ltx_wizard.core.evaluation.eval_lines import closing_block

        print(clean_block("\n".join(closing_block(run_dir, runner.manifest, state))))
    return {"done": 0, "stopped": EXIT_STOPPED}.get(state.state, 1)


def _refresh_summary(run_dir: Path) -> None:
    """run-summary.md again, now with the renders (only for a run whose training finished)."""
    from ltx_wizard.core.base.errors import WizardError
    from ltx_wizard.core.io.safe_fs import write_text
    from ltx_wizard.core.monitor.status import RunMonitor
    from ltx_wizard.core.monitor.summary import SUMMARY_NAME, render_summary

    try:
        status = RunMonitor(run_dir).status()
        if status.state == "finished":
            write_text(run_dir / SUMMARY_NAME, render_summary(status), root=run_dir)
    except WizardError:
        pass  # the renders and prompts.json are there; the summary comes with `status`
