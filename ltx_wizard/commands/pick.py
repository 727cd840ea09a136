"""`ltx-wizard pick RUN STEP`: the checkpoint you choose of those `compare` compared (issue 44,
Deliver 5). Records it in RUN/outputs/compare/pick.json (core/compare/pick_record.py decides what
can be picked) and writes run-summary.md again, whose render line then uses it."""

from __future__ import annotations

import argparse
from pathlib import Path

from ltx_wizard.core.base.text_safety import clean_text


def _step(text: str) -> int:
    try:
        value = int(text.replace(",", "").replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"STEP wants a checkpoint's step number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"STEP wants a checkpoint's step number, got {text!r}")
    return value


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "pick",
        help="pick the checkpoint to use, of those `compare` compared (run-summary.md's render line uses it)",
        description="Record STEP as the checkpoint you use (RUN/outputs/compare/pick.json, with the "
        "time and the step compare recommended then) and write run-summary.md again: its render line "
        "then uses the picked checkpoint. Only a kept checkpoint that compare compared can be picked. "
        "Exit 0 picked, 2 not a compared checkpoint (or no comparison yet).",
    )
    p.add_argument("run", metavar="RUN", help="the run folder")
    p.add_argument("step", metavar="STEP", type=_step, help="the step of a compared checkpoint, e.g. 1400")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ltx_wizard.core.compare.compare_view import pick_text
    from ltx_wizard.core.compare.pick_record import pick, pick_path
    from ltx_wizard.core.io.run_folder import require_config

    run_dir = Path(args.run).expanduser().absolute()
    require_config(run_dir)
    picked = pick(run_dir, args.step)
    print(clean_text(f"Picked: {pick_text(picked)}"))
    print(clean_text(f"Recorded in {pick_path(run_dir)}"))
    summary = _refresh_summary(run_dir)
    if summary is not None:
        print(clean_text(f"Summary: {summary} (its render line uses step {picked.step:,})"))
    return 0


def _refresh_summary(run_dir: Path) -> Path | None:
    """run-summary.md again, now with the pick (only for a run whose training finished)."""
    from ltx_wizard.core.base.errors import WizardError
    from ltx_wizard.core.monitor.status import RunMonitor
    from ltx_wizard.core.monitor.summary import ensure_summary

    try:
        return ensure_summary(RunMonitor(run_dir).status(gpus=False))
    except WizardError:
        return None  # the pick is recorded; the summary comes with `status`
