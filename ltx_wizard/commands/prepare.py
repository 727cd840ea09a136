"""`ltx-wizard prepare SOURCE`: raw clips to the dataset file the trainer's preprocessing reads,
under `<workspace>/<run>/dataset/` (core/prepare/). Questions are asked on the terminal; with
`--yes` the offers (rotated copies, scene splits) and the caption spot check are answered yes,
the captions still printed in full. Without a terminal and without --yes the spot check stops
the run (exit 2: --yes is needed) after printing the samples: nothing beyond them is captioned
unapproved. A no at the spot check is a stop by the user: exit 130.

stdout carries only the dataset file's path (or the JSON), stderr the story and the next step.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

from ltx_wizard.commands.common import add_gpu_source_args, print_json
from ltx_wizard.core.base.text_safety import clean_block, clean_text
from ltx_wizard.core.prepare.scripts import SIMULATE_SAYS

YES_TOPICS = ("rotate", "scenes")  # the offers for scripts --yes answers


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "prepare",
        help="raw clips -> <run>/dataset/dataset.json: audit, scenes, captions, held-out set",
        description="Stage SOURCE (a folder of clips or images, one long video, or a dataset "
        "file) under <workspace>/<run>/dataset/ as links (your files are never moved or "
        "changed), audit every clip as the trainer reads it, split long videos into scenes "
        "(scripts/split_scenes.py), caption with scripts/caption_videos.py after a 3-caption "
        "spot check you approve, check references and masks, and keep a held-out set aside "
        "(dataset/holdout.jsonl; samples of source videos nothing else came from first). Then plan with the printed `ltx-wizard plan ...` line, which "
        "runs as printed (it names the checkout, the GPU source and the models found). " + SIMULATE_SAYS,
    )
    p.add_argument(
        "source",
        metavar="SOURCE",
        help="folder of clips/images, a video, or a dataset file (.json, .jsonl, .csv)",
    )
    p.add_argument(
        "--workspace",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="where run folders go (else $LTX_TRAININGS_DIR, /data/ltx-trainings, ...)",
    )
    p.add_argument(
        "--run-name",
        metavar="NAME",
        help="the run folder's name (default <mode>-<source>-<time>); plan into the same one afterwards",
    )
    p.add_argument(
        "--trainer-root",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="your LTX-2 checkout (its scripts do the work)",
    )
    p.add_argument(
        "--recipe",
        metavar="NAME",
        default="t2v_lora",
        help="the recipe you will train (its columns: references, masks, sound)",
    )
    p.add_argument(
        "--captioner",
        choices=("qwen_omni", "gemini_flash", "none"),
        help="default: gemini_flash with GEMINI_API_KEY set, else the local Qwen3-"
        "Omni server on a GPU with 40 GiB free, else none (captions from a file)",
    )
    p.add_argument(
        "--vllm-url",
        metavar="URL",
        help="a running Qwen3-Omni server elsewhere, its base URL (http://host:port/v1): "
        "captions with qwen_omni from it, no local server, whatever this GPU's free memory",
    )
    p.add_argument(
        "--captions",
        metavar="FILE",
        help="your own captions (CSV/JSON/JSONL with caption and video or media_path columns)",
    )
    p.add_argument(
        "--split-scenes",
        action="store_true",
        help="split the folder's long videos (10 s or more) into scenes",
    )
    p.add_argument(
        "--holdout",
        metavar="N|PATH",
        help="held-out samples: a count (0 skips), "
        "or your own held-out dataset file or folder (default about 10 %%)",
    )
    p.add_argument(
        "--lora-trigger",
        metavar="WORD",
        help="trigger word for preprocessing (recorded; never written into the captions)",
    )
    p.add_argument(
        "--resolution-buckets",
        metavar="WxHxF",
        help="judge the clips against this bucket (default: one suggested from them)",
    )
    p.add_argument(
        "--instruction",
        metavar="TEXT",
        help="a caption instruction (after a spot "
        "check asked for one; the captioner's default prompt otherwise)",
    )
    p.add_argument("--recaption", action="store_true", help="caption again clips that have one")
    p.add_argument(
        "--canny",
        action="store_true",
        help="make Canny edge references (scripts/compute_reference.py), only if Canny is what you want",
    )
    p.add_argument(
        "--drop-uncaptioned",
        action="store_true",
        help="leave out clips the captioner failed on (else prepare stops, naming them)",
    )
    p.add_argument(
        "--yes",
        action="store_true",
        help="answer the spot check and every offer for scripts (rotated copies, scene splits) with yes",
    )
    add_gpu_source_args(p)
    p.add_argument("--json", action="store_true", help="machine-readable result on stdout")
    p.set_defaults(func=run)


class TerminalAsker:
    """Questions on the terminal (stderr and stdin); --yes answers the offers."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.tty = sys.stdin.isatty() and sys.stderr.isatty()
        self._last = ""

    def say(self, line: str) -> None:
        """Every line prepare shows: captions, file names and the captioner's words are foreign
        text, so each goes through the one sanitiser (its newlines kept: a caption is a block)."""
        self._end_progress()
        print(clean_block(line), file=sys.stderr, flush=True)

    def progress(self, stage: str, done: int, total: int) -> None:
        text = f"{stage}: {done:,}/{total:,}" if total else f"{stage}: working"
        if self.tty:
            print(f"\r{text}", end="", file=sys.stderr, flush=True)
            self._last = text
        elif total >= 50 and (done == total or done % max(1, total // 10) == 0) and text != self._last:
            self._last = text
            print(text, file=sys.stderr, flush=True)

    def _end_progress(self) -> None:
        if self.tty and self._last:
            print(file=sys.stderr)
            self._last = ""

    def _ask(self, question: str) -> str | None:
        if not self.tty:
            return None
        self._end_progress()
        try:
            return input(f"{clean_block(question)} ").strip()
        except EOFError:
            return None

    async def confirm(self, question: str, *, topic: str) -> bool:
        if topic == "leave-out" and self.args.drop_uncaptioned:
            self.say(f"{question} yes (--drop-uncaptioned)")
            return True
        if self.args.yes and topic in YES_TOPICS:
            self.say(f"{question} yes (--yes)")
            return True
        answer = await asyncio.to_thread(self._ask, f"{question} [y/N]")
        return (answer or "").lower() in ("y", "yes")

    async def approve_captions(self, shown: list[tuple[str, str]]) -> bool | str | None:
        self.say("Spot check: captions of 3 clips with the captioner's default prompt, in full:")
        for clip, caption in shown:
            self.say(f"\n{clip}:\n{caption}")
        if self.args.yes:
            self.say("\nApproved (--yes): captioning the rest.")
            return True
        answer = await asyncio.to_thread(
            self._ask,
            "\nCaption the rest like this? [y]es, [n]o (stop), or type an instruction "
            "to caption these 3 again with:",
        )
        if answer is None:
            return None  # the flow says so, with where the samples' captions are (exit 2)
        return (
            True if answer.lower() in ("y", "yes") else False if answer.lower() in ("", "n", "no") else answer
        )

    async def choose_holdout(self, question: str, total: int) -> int:
        if self.args.yes:
            self.say(f"{question} 1 (--yes: the smaller reserve)")
            return 1
        answer = await asyncio.to_thread(self._ask, f"{question} [1/2/0]")
        if answer in ("0", "1", "2"):
            return int(answer)
        from ltx_wizard.core.base.errors import UsageError

        raise UsageError(
            f"the dataset has {total} samples: choose the held-out count with "
            "--holdout 1, --holdout 2 or --holdout 0 (skip)"
        )


def _gpus(args: argparse.Namespace):
    def read():
        from ltx_wizard.commands.common import probe_from_args
        from ltx_wizard.core.base.errors import WizardError
        from ltx_wizard.core.prepare.gpu_free import free_memory

        try:
            return free_memory(probe_from_args(args))
        except WizardError:  # no GPU readable here: the captioner choice says so
            return []

    return read


# PrepareRequest's field for each option whose name differs
_FIELDS = {"captions": "captions_file", "resolution_buckets": "buckets"}
_OPTIONS = (
    "source",
    "workspace",
    "run_name",
    "trainer_root",
    "recipe",
    "captioner",
    "vllm_url",
    "captions",
    "split_scenes",
    "holdout",
    "lora_trigger",
    "resolution_buckets",
    "instruction",
    "recaption",
    "canny",
)


def request_from(args: argparse.Namespace):
    """The command line's side of the one adapter (core/prepare/prepare_request.py build_prepare_request),
    as the Prepare screen's request() is the screen's."""
    from ltx_wizard.core.prepare.prepare_request import build_prepare_request

    return build_prepare_request(
        {_FIELDS.get(name, name): getattr(args, name) for name in _OPTIONS if hasattr(args, name)}
    )


def run(args: argparse.Namespace) -> int:
    from ltx_wizard.core.prepare.next_step import dataset_args
    from ltx_wizard.core.prepare.prepare_session import PrepareSession
    from ltx_wizard.demo.sim import prepare_runs

    request = request_from(args)
    asker = TerminalAsker(args)
    session = PrepareSession(
        request,
        asker,
        gpus=_gpus(args),
        runner=prepare_runs.scripts_runner(demo=False, simulate=getattr(args, "simulate", None)),
        audio_probe=prepare_runs.audio_probe(args.stand_ins.chosen),
    )
    result = asyncio.run(session.run())
    line = _plan_line(args, result.plan)
    if args.json:
        print_json(
            {
                "run_dir": str(result.run_dir),
                "dataset": str(result.dataset_file),
                "samples": result.samples,
                "held_out": list(result.held_out),
                "holdout": str(result.holdout_file) if result.holdout_file else None,
                "bucket": result.bucket,
                "recipe": result.recipe,
                "plan_args": dataset_args(result.plan),
                "next": list(line.argv),
                "next_runnable": line.runnable,
            }
        )
        return 0
    print(clean_text(result.dataset_file))
    if not line.runnable:
        print(f"Models: {clean_text(line.why)}", file=sys.stderr)
    print(f"Next: {clean_text(line.text())}", file=sys.stderr)
    return 0


def _plan_line(args: argparse.Namespace, inputs):
    """The printed next step, rendered from the fields prepare hands the plan."""
    from ltx_wizard.core.prepare.next_step import gpu_source_args, plan_line

    gpus = gpu_source_args(
        getattr(args, "simulate", None), getattr(args, "from_csv", None), getattr(args, "vram_gb", None)
    )
    return plan_line(inputs, gpus, _models())


def _models():
    """The best checkpoint with its matching Gemma, found as `ltx-wizard discover` finds them."""
    from ltx_wizard.core.inputs.discovery import discover
    from ltx_wizard.core.prepare.next_step import Models

    for found in discover(env=os.environ).candidates:
        if found.kind == "checkpoint" and found.usable and found.text_encoder is not None:
            return Models(
                checkpoint=found.path,
                text_encoder=found.text_encoder,
                video_vae=found.video_vae,
                audio_vae=found.audio_vae,
            )
    return None
