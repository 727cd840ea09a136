"""`ltx-wizard setup`: make a bare GPU box ready for the trainer, one offer at a time.

Each offer (install uv, clone the trainer, update a checkout too old for the checkpoint or from
before 2026-06-17's config rename, uv sync and the trainer's import check) is shown with what it
will do, its commands and its size, and runs only after `y` (or `--yes`). Every command's output
goes to one setup log. stdout carries only the checkout's path once it is ready, so
`ltx-wizard setup --yes && ...` scripts well.
"""

from __future__ import annotations

import argparse
import sys

from ltx_wizard.core.base.errors import EXIT_FAILURE, EXIT_OK, EXIT_STOPPED, EXIT_USAGE
from ltx_wizard.core.base.text_safety import clean_block, clean_text


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "setup",
        help="install what the trainer needs: uv, the LTX-2 checkout, its environment (asks first)",
        description="Check for uv, the LTX-2 trainer checkout and its environment, and offer what "
        "is missing, one item at a time with what it does and how big it is: uv (pip-installed "
        "into the wizard's own environment, used by its path), a git clone of the trainer, "
        "`git pull` when the checkout is too old for --checkpoint or from before 2026-06-17 (the trainer "
        "configs' old names), `uv sync` and an import check. "
        "Nothing runs without a yes; shell rc files and system packages are never touched. "
        "Exit 0 ready, 1 a step failed, 2 no answer could be read (no terminal: pass --yes), "
        "130 an offer answered no.",
    )
    p.add_argument(
        "--trainer-root",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="where the checkout is or is cloned to (default ~/LTX-2)",
    )
    p.add_argument(
        "--trainer-repo",
        metavar="URL",
        default=argparse.SUPPRESS,  # the wizard's own --trainer-repo, given before `setup`, stands
        help="clone from this URL or path instead (a mirror)",
    )
    p.add_argument(
        "--checkpoint",
        metavar="FILE",
        help="the checkpoint you will train: the checkout is checked against what it needs",
    )
    p.add_argument("--text-encoder", metavar="PATH", help="its Gemma text encoder, checked too")
    p.add_argument("--yes", action="store_true", help="accept every offer (for scripts)")
    p.set_defaults(func=run)


def _say(text: str = "") -> None:
    """Every line setup shows: git's, uv's and the hub's words in it are foreign text."""
    print(clean_block(text), file=sys.stderr, flush=True)


NO_ANSWER = "no answer"  # an offer declined because nothing could be read


def _ask(question: str, yes: bool) -> bool | None:
    """True or False as answered; None when nothing could be read (no terminal, no input)."""
    if yes:
        _say(f"{question} yes (--yes)")
        return True
    print(question, end=" ", file=sys.stderr, flush=True)
    try:
        answer = sys.stdin.readline()
    except (OSError, ValueError):
        answer = ""
    if not answer:
        _say("(no answer: nothing read from standard input; --yes accepts every offer)")
        return None
    return answer.strip().lower() in ("y", "yes")


def _misfits(args: argparse.Namespace):
    """What the given checkpoint / text encoder need of a checkout (None when none is given)."""
    if not args.checkpoint:
        return None
    from ltx_wizard.core.inputs.checkpoint import inspect_checkpoint
    from ltx_wizard.core.inputs.text_encoder import inspect_text_encoder
    from ltx_wizard.core.inputs.version_fit import check_fit

    ckpt = inspect_checkpoint(args.checkpoint)
    te = inspect_text_encoder(args.text_encoder) if args.text_encoder else None
    return lambda caps: check_fit(caps, ckpt, te)


def _printer():
    state = {"phase": ""}

    def on_line(progress, _line: str) -> None:
        text = progress.line()
        head = text.split(":", 1)[0]
        if head != state["phase"]:  # one line per phase change: readable on a pipe and a log
            state["phase"] = head
            _say(f"    {text}")

    return on_line


def run(args: argparse.Namespace) -> int:
    from ltx_wizard.core.setup.offer_session import Outcome, log_path, run_offer, skip_reason
    from ltx_wizard.core.setup.survey import TRAINER_REPO, survey

    root = getattr(args, "trainer_root", None)
    repo = getattr(args, "trainer_repo", None) or TRAINER_REPO
    misfits = _misfits(args)
    found = survey(root, repo=repo, misfits=misfits)
    for note in found.notes:
        _say(f"  {note}")
    log = log_path()
    outcomes: list[Outcome] = []
    for offer in found.offers:
        _say(f"\n{offer.title}\n  what:  {offer.does}\n  size:  {offer.size_now()}")
        for line in offer.commands():
            _say(f"  runs:  {line}")
        reason = skip_reason(offer, outcomes)
        if reason is not None:
            outcomes.append(Outcome(key=offer.key, status="skipped", detail=reason))
            _say(f"  skipped: {reason}")
            continue
        answer = _ask("  Do it? [y/N]", args.yes)
        if not answer:
            outcomes.append(
                Outcome(key=offer.key, status="declined", detail="" if answer is False else NO_ANSWER)
            )
            _say("  declined")
            continue
        outcome = run_offer(offer, log, on_line=_printer())
        outcomes.append(outcome)
        _say(f"  {outcome.status}: {outcome.detail}")
    return _finish(survey(root, repo=repo, misfits=misfits), outcomes, log)


def _finish(after, outcomes, log) -> int:
    from ltx_wizard.core.setup.offer_session import headline

    if outcomes:
        _say(f"\n{headline(outcomes)}\nSetup log: {log}")
    if after.ready:
        _say(
            f"Ready: uv {after.uv}; trainer checkout {after.root} synced"
            + (f" ({after.caps.loads()})" if after.caps else "")
        )
        print(clean_text(after.root))
        return EXIT_OK
    missing = [o.title for o in after.offers] or ["see the notes above"]
    _say(f"Not ready yet: {'; '.join(missing)}")
    return _not_ready_code(outcomes)


def _not_ready_code(outcomes) -> int:
    """README's exit codes: a step that failed is 1; an offer no one could answer (no terminal) is
    2, naming --yes; an offer answered no is a stop by the user, 130."""
    if any(o.status == "failed" for o in outcomes):
        return EXIT_FAILURE
    if any(o.detail == NO_ANSWER for o in outcomes):
        _say("ltx-wizard: setup asks before each step: answer on a terminal, or pass --yes")
        return EXIT_USAGE
    if any(o.status == "declined" for o in outcomes):
        return EXIT_STOPPED
    return EXIT_FAILURE
