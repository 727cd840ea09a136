"""`ltx-wizard discover`: find and rank LTX-2 checkpoints, Gemma text encoders and VAEs."""

from __future__ import annotations

import argparse
import os

from ltx_wizard.commands.common import print_json
from ltx_wizard.core.inputs.discovery import (
    MAX_FOLDERS,
    MAX_HEADERS,
    SAFETY_CAP_S,
    STALL_S,
    DiscoveryResult,
    discover,
)
from ltx_wizard.core.base.errors import EXIT_OK, UsageError, WizardError
from ltx_wizard.core.inputs.model_paths import require_directory, resolve_user_path
from ltx_wizard.core.base.text_safety import clean_text


def register(sub) -> None:
    p = sub.add_parser(
        "discover",
        help="find model files in /models, ~/models, $LTX_MODELS_DIR, the Hugging Face cache and --models-dir",
        description=(
            "Search the usual model folders and rank what is found. The search is bounded by "
            f"work ({MAX_FOLDERS:,} folders walked, {MAX_HEADERS:,} headers read, depth), so the "
            "same folders give the same answer however busy the box is; the clock only stops a "
            f"folder that does not answer ({STALL_S:.0f} s) or a box too busy to finish."
        ),
    )
    p.add_argument(
        "--models-dir",
        metavar="DIR",
        action="append",
        default=[],
        help="another folder to search (repeatable)",
    )
    p.add_argument("--max-depth", type=int, default=4, metavar="N", help="folder depth to search (default 4)")
    p.add_argument(
        "--time-budget",
        type=float,
        default=SAFETY_CAP_S,
        metavar="S",
        help=f"safety cap in seconds (default {SAFETY_CAP_S:g}): only a box too busy to finish "
        "the bounded search reaches it; a search cut short prints what it did not search "
        "and exits 1",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run)


def _text(result: DiscoveryResult) -> list[str]:
    lines = [
        f"searched {len(result.roots)} folder(s) ({result.dirs_scanned} folders walked, "
        f"{result.elapsed_s:.2f} s):"
    ]
    lines += [f"  {root}" for root in result.roots]
    if result.missing_roots:
        lines.append(f"not there: {', '.join(map(str, result.missing_roots))}")
    if result.hf_cache is not None:
        snapshots = sum(1 for r in result.roots if result.hf_cache in r.parents)
        lines.append(
            f"Hugging Face cache {result.hf_cache}: "
            + (f"{snapshots} snapshot(s) searched" if snapshots else "no downloads there")
        )
    if result.partial:
        lines += _partial(result)
    if result.depth_limited:
        lines.append("note: some folders were deeper than --max-depth and were not searched")
    if not result.candidates:
        lines.append(
            "nothing found: pass --models-dir DIR, or download the checkpoint and its Gemma with "
            "`hf download` (README: Before you start)"
        )
    for c in result.candidates:
        mark = "" if c.usable else " [unusable]"
        lines.append(f"{c.rank:>3}. {c.kind:<12} {c.path}{mark}")
        lines.append(f"     {c.summary}")
        lines.append(f"     why: {c.reason}")
    return lines


def _partial(result: DiscoveryResult) -> list[str]:
    """The plain statement of a search cut short, and every folder it did not search."""
    lines = [f"PARTIAL RESULT: {result.partial_note(shown=0, advice=_advice(result))}"]
    if result.unsearched:
        lines.append(f"not searched ({len(result.unsearched)} folder(s); the first in part):")
        lines += [f"  {folder}" for folder in result.unsearched]
    return lines


def run(args: argparse.Namespace) -> int:
    if not 0 <= args.max_depth <= 64:
        raise UsageError(f"--max-depth {args.max_depth}: give a depth from 0 to 64")
    if not 0 < args.time_budget <= 3600:  # also refuses nan and inf
        raise UsageError(f"--time-budget {args.time_budget:g}: give seconds above 0, at most 3600")
    dirs = []
    for raw in args.models_dir:
        path = resolve_user_path(raw, what="--models-dir")
        require_directory(path, what="--models-dir")
        dirs.append(path)
    result = discover(dirs, env=os.environ, max_depth=args.max_depth, time_budget_s=args.time_budget)
    if args.json:
        print_json(result.model_dump(mode="json"))
    else:
        print("\n".join(clean_text(line) for line in _text(result)))  # names are outside text
    if result.failed:
        raise WizardError(
            f"the search stopped early ({result.failed}): results above are "
            "partial; pass a narrower --models-dir"
        )
    if result.partial:
        ran_out = "the search ran out of time: " if result.timed_out else ""
        raise WizardError(
            f"{ran_out}{result.why_stopped()}: results above are partial "
            f"({len(result.unsearched)} folder(s) not searched); "
            f"{_advice(result)}"
        )
    return EXIT_OK


def _advice(result: DiscoveryResult) -> str:
    if result.stopped == "stalled":
        return "check that mount (or leave it out), or pass a narrower --models-dir"
    if result.timed_out:
        return "retry when the box is less busy, raise --time-budget, or pass a narrower --models-dir"
    return "pass a narrower --models-dir"
