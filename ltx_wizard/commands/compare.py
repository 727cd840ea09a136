"""`ltx-wizard compare RUN`: which kept checkpoint to use, and why (issue 44). Runs the LoRA health
check on every compared checkpoint and the held-out loss on the base model and each of them, inside
the trainer's environment (core/compare/compare_plan.py decides what, compare_run.py runs it and
reads the records back), then prints each checkpoint's numbers and the recommendation
(core/compare/recommend.py). Unless --no-render, the tournament's one process computes the held-out
loss first, on its one model load, and then renders the base and each checkpoint at the same seed
and prompts (core/evaluation/tournament.py); the results are read after it, then the grid
(core/compare/grid_record.py), the contact sheet and the HTML page, and the scp line that copies
the folder home, printed last. Shows; decides nothing itself.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path
from typing import NoReturn

from ltx_wizard.commands.common import add_gpu_source_args, run_until_signal
from ltx_wizard.core.base.errors import UsageError
from ltx_wizard.core.base.text_safety import clean_block
from ltx_wizard.core.io.run_folder import require_config

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
        "checkpoint, run in the trainer's environment (uv run in the checkout). Unless --no-render, "
        "the held-out loss runs first in the tournament's one process, on its one model load, and "
        "then the tournament: the base model and every compared checkpoint rendered at the "
        "same seed and prompts (one of each of eval's categories, short clips, few inference steps, "
        "each checkpoint's LoRA swapped in place), written as grid.json, contact-sheet.png and index.html beside "
        "the renders, and the scp line that copies them home. Records: RUN/outputs/compare/; "
        "logs: RUN/logs/compare-*.log. Exit 0 done, 1 a program failed, 2 bad input, 130 stopped.",
    )
    p.add_argument("run", metavar="RUN", help="the run folder")
    p.add_argument(
        "--checkpoints",
        default="all",
        metavar="all|STEP,...",
        help="the kept checkpoints to compare: all (the default), or their steps, e.g. 200,400",
    )
    p.add_argument(
        "--no-render",
        action="store_true",
        help="no tournament renders: the health check, the held-out loss (then its own program, "
        "which loads the model itself) and the recommendation only",
    )
    p.add_argument("--yes", action="store_true", help="start without asking")
    p.add_argument("--json", action="store_true", help="the checkpoints and the recommendation as JSON")
    add_gpu_source_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ltx_wizard.core.compare.compare_plan import Kept, plan_compare
    from ltx_wizard.core.compare.compare_record import compare_json, compare_record, write_compare
    from ltx_wizard.core.compare.compare_run import loss_records, results, run_programs
    from ltx_wizard.core.compare.measured_cost import cost_lines, estimate, measured
    from ltx_wizard.core.compare.recommend import recommend
    from ltx_wizard.core.evaluation.checkpoints import saved
    from ltx_wizard.core.evaluation.request import stand_in_for_run
    from ltx_wizard.core.evaluation.tournament import tournament_log
    from ltx_wizard.core.monitor.run_config import read_config

    run_dir = Path(args.run).expanduser().absolute()
    config = read_config(require_config(run_dir))
    kept = [Kept(s.step, s.path) for s in saved(run_dir, config)]
    stand_in = stand_in_for_run(run_dir, args.stand_ins)
    render_log = None if args.no_render else tournament_log(run_dir)
    plan = plan_compare(
        run_dir,
        kept,
        args.checkpoints,
        stand_in=stand_in,
        uv=shutil.which("uv"),
        config=config,
        render_log=render_log,
    )
    tournament = None if args.no_render else _plan_tournament(run_dir, config, plan, stand_in)
    shown = sys.stderr if args.json else sys.stdout
    lines = [*plan.lines, *(tournament.lines if tournament is not None else ())]
    print(clean_block("\n".join(lines)), file=shown, flush=True)
    _confirm(args)
    started = time.monotonic()
    run_until_signal(run_programs(plan, _say(args.json)), "compare", STOPPED_WORDS)
    rows = None if tournament is None else _renders(run_dir, plan, tournament, args.json)
    found = results(plan, config)
    picked = recommend(found, plan.held_out_note)
    cost = measured(
        loss_records(plan),
        time.monotonic() - started,
        estimate(run_dir, config, plan),
        rendered=rows is not None,
    )
    record = compare_record(found, plan.held_out_note, picked, cost)
    write_compare(run_dir, record)  # outputs/compare/compare.json: what status and run-summary read
    made = None if rows is None or tournament is None else _tournament(run_dir, rows, tournament, record)
    if args.json:
        doc = compare_json(record)
        doc["grid"] = None if made is None else str(made[0])
        doc["contact_sheet"] = None if made is None else str(made[1])
        print(json.dumps(doc, indent=2, ensure_ascii=False))
    else:
        print(clean_block("\n".join(_table(found, picked, plan.held_out_note) + cost_lines(cost))))
    if made is not None:  # the last line: the folder home
        from ltx_wizard.core.base.scp_line import scp_line

        print(clean_block(f"copy it home: {scp_line(made[2], folder=True)}"), file=shown)
    return 0


def _plan_tournament(run_dir: Path, config, plan, stand_in):
    from ltx_wizard.core.evaluation.tournament import plan_tournament

    try:
        return plan_tournament(
            run_dir, config, len(plan.checkpoints), stand_in, loss=plan.held_out_root is not None
        )
    except UsageError as exc:
        raise UsageError(f"{exc.message} (or compare without renders: --no-render)") from None


def _renders(run_dir: Path, plan, tournament, quiet: bool):
    """The tournament's one process: the held-out loss first (the records still missing), then the
    renders; a WizardError naming its log where the loss failed there (compare_run.check_loss)."""
    from ltx_wizard.core.compare import grid_record as grid
    from ltx_wizard.core.compare.compare_run import check_loss, missing_loss
    from ltx_wizard.core.evaluation.tournament import Contender

    contenders = [Contender(grid.row_name(None), None, None)]
    contenders += [Contender(grid.row_name(k.step), k.step, k.path) for k in plan.checkpoints]
    grid.clear_grid(run_dir)

    def loss_args() -> list[str]:  # asked before each attempt: a retry computes no record twice
        return plan.loss_args(missing_loss(plan))

    rows = _render(run_dir, tournament, contenders, grid.renders_dir(run_dir), quiet, loss_args)
    check_loss(plan, tournament.log)
    return rows


def _tournament(run_dir: Path, rows, tournament, record) -> tuple[Path, Path, Path]:
    """grid.json, the contact sheet and the page from the renders: (their paths, the folder)."""
    from ltx_wizard.core.compare import grid_record as grid
    from ltx_wizard.core.compare.compare_page import write_page
    from ltx_wizard.core.compare.compare_record import compare_line
    from ltx_wizard.core.compare.contact_sheet import write_sheet

    cells = [[(c.render, c.keyframes, c.missing) for c in row.cells] for row in rows]
    made = grid.grid_record(
        tournament.settings.words(),
        tournament.prompts[0].seed,
        [
            grid.GridPrompt(index=i, category=p.category, text=p.text)
            for i, p in enumerate(tournament.prompts)
        ],
        [grid.grid_row(run_dir, r.contender.step, r.contender.checkpoint, c) for r, c in zip(rows, cells)],
    )
    path = grid.write_grid(run_dir, made)
    sheet = write_sheet(run_dir, made)
    write_page(run_dir, made, compare_line(record))
    return path, sheet, path.parent


def _render(run_dir: Path, tournament, contenders, renders_dir: Path, quiet: bool, loss_args):
    """render_tournament under the one signal handler: SIGINT, SIGTERM, SIGHUP stop the running
    render (core/proc), then end compare as they end the held-out loss under run_until_signal."""
    import threading

    from ltx_wizard.core.evaluation.tournament import render_tournament
    from ltx_wizard.core.evaluation.trainer_pass import Stopped as RenderStopped
    from ltx_wizard.core.io.safe_fs import open_append
    from ltx_wizard.core.proc.signals import install_blocking

    stop, got = threading.Event(), []

    def on_signal(signum: int) -> None:
        got.append(signum)
        stop.set()

    uninstall = install_blocking(on_signal=on_signal)
    say = _say(quiet)
    try:
        with open_append(tournament.log, root=run_dir) as log:

            def note(text: str) -> None:
                log.write(f"=== compare: {text}\n")
                log.flush()
                say(text)

            return render_tournament(
                run_dir,
                tournament.program,
                contenders,
                tournament.prompts,
                tournament.settings,
                renders_dir,
                log,
                log_rel=tournament.log.relative_to(run_dir).as_posix(),
                stop=stop,
                note=note,
                loss_args=loss_args,
            )
    except RenderStopped:
        _stopped(got)
    finally:
        uninstall()


def _stopped(got: list[int]) -> NoReturn:
    import signal

    from ltx_wizard.commands.common import Stopped

    if not got or got[0] == signal.SIGINT:
        raise KeyboardInterrupt from None  # Ctrl-C: "interrupted", 130
    raise Stopped(got[0], "compare", STOPPED_WORDS) from None


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
