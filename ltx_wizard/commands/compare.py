"""`ltx-wizard compare RUN`: which kept checkpoint to use, and why (issue 44). Runs the LoRA health
check on every compared checkpoint and the held-out loss on the base model and each of them, inside
the trainer's environment (core/compare/compare_plan.py decides what, compare_run.py runs it and
reads the records back), then prints each checkpoint's numbers and the recommendation
(core/compare/recommend.py). Shows; decides nothing itself.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from ltx_wizard.commands.common import add_gpu_source_args, run_until_signal
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.text_safety import clean_block
from ltx_wizard.core.io.run_folder import require_config

NO_RENDERS = (
    "compare: the tournament's renders (base model and every checkpoint at the same seeds) are not "
    "part of this version: only the health check, the held-out loss and the recommendation run"
)

# what a signal's one line says (commands/common.py run_until_signal)
STOPPED_WORDS = (
    "its program was stopped with it; run compare again (the records of this run are not complete)"
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "compare",
        help="which checkpoint to use: the LoRA health check and the held-out loss of every kept "
        "checkpoint, and a recommendation with its reason",
        description="Compare the run's kept checkpoints (issue 44): a LoRA health check of each "
        "(NaN or Inf values, B matrices left at zero, modules the config does not target, audio "
        "modules trained on a video-only run) and the trainer's own loss at fixed sigmas and noise "
        "seeds on the held-out clips and as many training clips, for the base model and each "
        "checkpoint, run in the trainer's environment (uv run in the checkout). Records: "
        "RUN/outputs/compare/; logs: RUN/logs/compare-*.log. Exit 0 done, 1 a program failed, "
        "2 bad input, 130 stopped.",
    )
    p.add_argument("run", metavar="RUN", help="the run folder")
    p.add_argument(
        "--checkpoints",
        default="all",
        metavar="all|STEP,...",
        help="the kept checkpoints to compare: all (the default), or their steps, e.g. 200,400",
    )
    p.add_argument("--no-render", action="store_true", help="do not render (this version never renders)")
    p.add_argument("--yes", action="store_true", help="start without asking")
    p.add_argument("--json", action="store_true", help="the checkpoints and the recommendation as JSON")
    add_gpu_source_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ltx_wizard.core.compare.compare_plan import Kept, plan_compare
    from ltx_wizard.core.compare.compare_record import compare_json, compare_record, write_compare
    from ltx_wizard.core.compare.compare_run import results, run_programs
    from ltx_wizard.core.compare.recommend import recommend
    from ltx_wizard.core.evaluation.checkpoints import saved
    from ltx_wizard.core.evaluation.request import stand_in_for_run
    from ltx_wizard.core.monitor.run_config import read_config

    run_dir = Path(args.run).expanduser().absolute()
    config = read_config(require_config(run_dir))
    kept = [Kept(s.step, s.path) for s in saved(run_dir, config)]
    stand_in = stand_in_for_run(run_dir, args.stand_ins)
    plan = plan_compare(run_dir, kept, args.checkpoints, stand_in=stand_in, uv=shutil.which("uv"))
    shown = sys.stderr if args.json else sys.stdout
    if not args.no_render:
        print(NO_RENDERS, file=shown)
    print(clean_block("\n".join(plan.lines)), file=shown, flush=True)
    _confirm(args)
    run_until_signal(run_programs(plan, _say(args.json)), "compare", STOPPED_WORDS)
    found = results(plan, config)
    picked = recommend(found, plan.held_out_note)
    record = compare_record(found, plan.held_out_note, picked)
    write_compare(run_dir, record)  # outputs/compare/compare.json: what status and run-summary read
    if args.json:
        print(json.dumps(compare_json(record), indent=2, ensure_ascii=False))
    else:
        print(clean_block("\n".join(_table(found, picked, plan.held_out_note))))
    return 0


def _say(quiet: bool):
    return (lambda text: None) if quiet else (lambda text: print(f"compare: {text}", flush=True))


def _confirm(args: argparse.Namespace) -> None:
    if args.yes:
        return
    if not sys.stdin.isatty():
        raise UsageError(
            "compare asks before it starts the trainer's environment: pass --yes to start without asking"
        )
    if input("Start the comparison? [y/N] ").strip().lower() not in ("y", "yes"):
        from ltx_wizard.core.base.errors import UserStop

        raise UserStop("not started: nothing was run")


def _table(found, picked, note: str | None) -> list[str]:
    from ltx_wizard.core.compare.loss_record import effect_text, loss_text

    lines = [f"{'step':>8}  {'held-out':>10}  {'train':>10}  {'effect':>10}  health"]
    for r in found:
        health = "ok" if r.health_ok else f"{len(r.problems)} problem(s)"
        lines.append(
            f"{r.step:>8,}  {_num(r.held_out_loss, loss_text):>10}  {_num(r.train_loss, loss_text):>10}  "
            f"{_num(r.effect, effect_text):>10}  {health}"
        )
        lines += [f"{'':>10}- {p}" for p in r.problems]
    if note is not None:
        lines.append(f"held-out loss: none ({note})")
    lines.append(f"recommended: {picked.reason}")
    return lines


def _num(value: float | None, text) -> str:
    return "-" if value is None else text(value)
