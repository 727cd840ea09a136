"""`ltx-wizard check`: validate model, data and trainer paths; a line per item, nothing written."""

from __future__ import annotations

import argparse
import sys

from ltx_wizard.commands.common import print_json
from ltx_wizard.core.dataset.checks import READ_ALL_MAX
from ltx_wizard.core.base.errors import EXIT_OK, EXIT_USAGE
from ltx_wizard.core.plan.model_checks import CheckItem, all_ok, check_request
from ltx_wizard.core.plan.plan_request import DEFAULT_RECIPE
from ltx_wizard.core.base.text_safety import clean_text


def register(sub) -> None:
    p = sub.add_parser(
        "check",
        help="validate checkpoint, text encoder, VAEs, data root and trainer checkout",
        description=(
            "Validate the paths a training run needs, reading file headers only. "
            "Exit 0 when every item is fine, 2 otherwise."
        ),
    )
    p.add_argument("--checkpoint", metavar="FILE", required=True, help="LTX-2 .safetensors")
    p.add_argument(
        "--text-encoder",
        metavar="PATH",
        required=True,
        help="Gemma folder (unified checkpoint) or packed .safetensors (split pack)",
    )
    p.add_argument("--video-vae", metavar="FILE", help="video VAE of a split pack")
    p.add_argument("--audio-vae", metavar="FILE", help="audio VAE of a split pack")
    p.add_argument(
        "--data-root",
        metavar="DIR",
        help="preprocessed data root (holds the folders the shipped config reads: latents/, conditions/, audio_latents/)",
    )
    p.add_argument(
        "--dataset",
        metavar="FILE",
        help="your clips' dataset file (.json, .jsonl, .csv): columns for the recipe, "
        "every media file, and each clip as the trainer's preprocessing takes it "
        "(frames, size, rotation, sound, read in-process with PyAV; past "
        f"{READ_ALL_MAX:,} clips a spread-out sample of {READ_ALL_MAX:,})",
    )
    p.add_argument(
        "--resolution-buckets",
        metavar="WxHxF",
        help="with --dataset: the bucket(s) to check the clips against (default 960x544x49)",
    )
    p.add_argument(
        "--video-only",
        action="store_true",
        help="check the data as a video-only run reads it (the shipped config's audio dropped, "
        "as `plan --video-only` writes training_strategy.audio: null)",
    )
    p.add_argument(
        "--recipe",
        metavar="NAME",
        help="check the data root against this shipped recipe's folders (e.g. i2v_lora, "
        "v2v_ic_lora, video_inpainting_lora; default: t2v_lora)",
    )
    # Deprecated: the folders now come from the shipped config's training_strategy, which
    # already demands audio_latents/ when it trains audio.
    p.add_argument("--with-audio", action="store_true", help=argparse.SUPPRESS)
    # SUPPRESS keeps `ltx-wizard --trainer-root D check` working (the top-level option).
    p.add_argument("--trainer-root", metavar="DIR", default=argparse.SUPPRESS, help="your LTX-2 checkout")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run)


def _json_item(item: CheckItem) -> dict:
    # video_only_data belongs to the data root's item only
    return item.model_dump(mode="json", exclude=None if item.name == "data_root" else {"video_only_data"})


def _line(item: CheckItem) -> str:
    # Paths and header metadata are outside text: no escape sequence reaches the terminal.
    if item.ok and item.warning:
        return clean_text(f"warn  {item.name:<13} {item.path}: {item.summary}")
    if item.ok:
        return clean_text(f"ok    {item.name:<13} {item.path}: {item.summary}")
    return clean_text(f"FAIL  {item.name:<13} {item.error}")


class ProgressLines:
    """A big dataset's check as it goes, on stderr: one line redrawn on a terminal, a line per
    tenth otherwise; nothing for a check of fewer than SHOWN_FROM items (done at once)."""

    SHOWN_FROM = 2_000

    def __init__(self, stream) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.last: tuple[str, int] | None = None

    def __call__(self, what: str, done: int, total: int) -> None:
        if total < self.SHOWN_FROM:
            return
        step = int(100 * done / total) if self.tty else 10 * (10 * done // total)
        if (what, step) == self.last:
            return
        self.last = (what, step)
        line = f"check: {what} {done:,}/{total:,} ({100 * done // total}%)"
        if self.tty:
            end = "\n" if done >= total else ""
            self.stream.write(f"\r\x1b[2K{line}{end}")
        else:
            self.stream.write(line + "\n")
        self.stream.flush()


def run(args: argparse.Namespace) -> int:
    if args.with_audio:
        print(
            "ltx-wizard: --with-audio is deprecated and ignored: the data root's folders come from"
            " the shipped config's training_strategy, which already requires audio_latents/ when"
            " it trains audio (--video-only drops it)",
            file=sys.stderr,
        )
    if args.dataset and args.data_root:
        print("ltx-wizard: give --data-root or --dataset, not both", file=sys.stderr)
        return EXIT_USAGE
    data = args.dataset or args.data_root
    strategy = None
    if args.recipe and data is not None:
        from ltx_wizard.core.plan.model_checks import recipe_strategy

        # an unknown recipe is bad input (exit 2, naming the recipes found), not a failed item
        strategy = recipe_strategy(getattr(args, "trainer_root", None), args.recipe)
    from ltx_wizard.core.plan.plan_request import lenient_request

    # the same request `plan` builds (its flags here are a subset), checked by plan's own steps
    request, problems = lenient_request(
        dict(
            checkpoint=args.checkpoint,
            text_encoder=args.text_encoder,
            video_vae=args.video_vae,
            audio_vae=args.audio_vae,
            data_root=data,
            video_only=args.video_only,
            trainer_root=getattr(args, "trainer_root", None),
            resolution_buckets=args.resolution_buckets,
            recipe=args.recipe or DEFAULT_RECIPE,
        )
    )
    items = check_request(
        request,
        strategy=strategy,
        problems=problems,
        on_progress=ProgressLines(sys.stderr) if args.dataset else None,
    )
    ok = all_ok(items)
    if args.json:
        print_json({"ok": ok, "items": [_json_item(item) for item in items]})
    else:
        for item in items:
            print(_line(item))
        if not ok:
            failed = sum(not item.ok for item in items)
            print(
                f"ltx-wizard: {failed} of {len(items)} checks failed; fix them and run check again",
                file=sys.stderr,
            )
    return EXIT_OK if ok else EXIT_USAGE
