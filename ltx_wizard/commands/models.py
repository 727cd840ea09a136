"""`ltx-wizard models`: offer the trainer's model files for download, one at a time, each only
after an explicit yes; then check each downloaded file as a typed path is checked."""

from __future__ import annotations

import argparse
import sys

from ltx_wizard.core.base.errors import EXIT_FAILURE, EXIT_OK, UsageError, WizardError
from ltx_wizard.core.base.text_safety import clean_text

ROLES = ("checkpoint", "text_encoder", "video_vae", "audio_vae")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "models",
        help="download the checkpoint and Gemma the trainer's docs name (asks before each file)",
        description="Offer the files the trainer's docs name for a release (LTX-2.5: the dev "
        "transformer, packed Gemma 4 and both VAEs; LTX-2.3: the dev checkpoint and its Gemma 3 "
        "folder), one at a time with size, free disk, gated-terms notice and token state, and "
        "download each you answer y to with huggingface_hub (resumable) into $LTX_MODELS_DIR or "
        "~/models. Needs the download extra (pip install 'ltx-wizard[download]').",
    )
    p.add_argument(
        "--release",
        choices=("ltx-2.5", "ltx-2.3"),
        default="ltx-2.5",
        help="which release's files (default ltx-2.5)",
    )
    p.add_argument(
        "--only",
        metavar="ROLE",
        action="append",
        choices=ROLES,
        help="offer only this file (checkpoint, text_encoder, video_vae, audio_vae); repeat for more",
    )
    p.set_defaults(func=run)


def _ask(question: str) -> bool:
    print(question, end=" ", file=sys.stderr, flush=True)
    try:
        answer = sys.stdin.readline()
    except (OSError, ValueError):
        answer = ""
    if not _is_tty(sys.stdin):  # not typed at a terminal: echo it, so each answer ends its line
        print(clean_text(answer.strip())[:20], file=sys.stderr, flush=True)
    return answer.strip().lower() in ("y", "yes")


def _is_tty(stream) -> bool:
    try:
        return stream.isatty()
    except (OSError, ValueError, AttributeError):
        return False


def run(args: argparse.Namespace) -> int:
    from ltx_wizard.core.inputs.model_download import download, make_offers

    offers = make_offers(args.release, args.only)
    if not sys.stderr.isatty():  # no bars redrawn into a log or a pipe
        from huggingface_hub.utils import disable_progress_bars

        disable_progress_bars()
    got: dict[str, str] = {}
    refused: list[int] = []
    failed = 0
    for offer in offers:
        print(offer.line(), file=sys.stderr)
        if offer.refusal:
            refused.append(offer.refusal_code)
            print(f"  not offered: {clean_text(offer.refusal)}", file=sys.stderr)
            continue
        if not _ask(f"  Download {offer.file.label()}? [y/N]"):
            print("  skipped", file=sys.stderr)
            continue
        try:
            path = download(offer)
        except WizardError as exc:  # one line, then the next file: each is offered alone
            failed += 1
            print(f"  failed: {clean_text(exc.message)}", file=sys.stderr)
            continue
        got[offer.file.role] = str(path)
        print(f"  downloaded: {path}", file=sys.stderr)
    if got:
        _check(got)
    for role, text in got.items():
        print(f"{role}={text}")
    if failed:
        raise WizardError(
            f"{failed} download(s) failed (the reason is above each): run "
            "`ltx-wizard models` again; a partial file resumes"
        )
    if refused:
        # a refusal of the machine's side (no disk, no answer from the Hub) is a failure (1);
        # one of the user's account or settings (gated terms, no token) is theirs to fix (2)
        error = WizardError if EXIT_FAILURE in refused else UsageError
        raise error(f"{len(refused)} file(s) not offered (the reason and the fix are above each)")
    return EXIT_OK


def _check(got: dict[str, str]) -> None:
    """The downloaded files, checked as typed paths are (headers only)."""
    from ltx_wizard.core.plan.model_checks import run_checks

    items = run_checks(
        checkpoint=got.get("checkpoint"),
        text_encoder=got.get("text_encoder"),
        video_vae=got.get("video_vae"),
        audio_vae=got.get("audio_vae"),
    )
    for item in items:
        if item.path is None:
            continue  # not downloaded now: nothing to check
        verdict = item.summary if item.ok else item.error
        print(
            f"  {'ok' if item.ok else 'FAIL'}  {clean_text(item.name)}: {clean_text(verdict)}",
            file=sys.stderr,
        )
