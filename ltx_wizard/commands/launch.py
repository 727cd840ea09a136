"""`ltx-wizard launch RUN --target skypilot`: the planned run as a SkyPilot task (issue 46).

SkyPilot is the one target for now. The command makes the plan's checks (core/cloud/sky_request.py),
writes <run>/sky/ (task.yaml, smoke.yaml, the node's configs and scripts, README.md) and has
SkyPilot's own parser accept each task file and each command of the README, in SkyPilot's own
environment (core/cloud/sky_python.py). Nothing is rented: the README says what to run.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from ltx_wizard.core.base.errors import EXIT_OK
from ltx_wizard.core.base.text_safety import clean_text


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "launch",
        help="write a planned run as a task for rented GPUs (--target skypilot)",
        description="Write RUN/sky/task.yaml (the training), RUN/sky/smoke.yaml (20 steps first) "
        "and RUN/sky/README.md (the three commands to run, what costs money after the end) for "
        "SkyPilot, after the plan's checks: effective batch, one trainer commit on every node, a "
        "shared outputs folder for several nodes. SkyPilot's own parser checks the files; it runs "
        "from its own environment (uv tool install skypilot). Nothing is rented here. "
        "Exit 0 written, 1 SkyPilot refused a file, 2 a check failed or SkyPilot is not installed.",
    )
    p.add_argument("run", metavar="RUN", help="the run folder `ltx-wizard plan` wrote")
    p.add_argument("--target", choices=("skypilot",), required=True, help="where to run it: skypilot")
    p.add_argument("--spot", action="store_true", help="rent spot (preemptible) GPUs; the job resumes")
    p.add_argument("--smoke", action="store_true", help="print the smoke run's command first")
    outputs = p.add_mutually_exclusive_group()
    outputs.add_argument("--bucket", metavar="NAME", help="keep outputs/ on this bucket (created if new)")
    outputs.add_argument("--volume", metavar="NAME", help="keep outputs/ on this SkyPilot volume")
    p.add_argument(
        "--accelerator",
        metavar="NAME",
        help="the GPU to rent, as `sky show-gpus` names it (default: the plan's)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ltx_wizard.core.cloud.sky_launch import launch_sky
    from ltx_wizard.core.cloud.sky_request import SkyOptions, check_accelerator, check_name

    options = SkyOptions(
        spot=args.spot,
        bucket=check_name(args.bucket, "--bucket") if args.bucket else None,
        volume=check_name(args.volume, "--volume") if args.volume else None,
        accelerator=check_accelerator(args.accelerator) if args.accelerator else None,
    )
    done = launch_sky(Path(args.run).expanduser(), options)
    for path in done.written:
        print(f"wrote {clean_text(str(path))}", file=sys.stderr)
    for line in done.request.warnings:
        print(f"note: {clean_text(line)}", file=sys.stderr)
    print("SkyPilot accepts both task files and the README's commands; run:", file=sys.stderr)
    cmds = done.commands
    for argv in cmds.three() if args.smoke else [cmds.train, cmds.logs]:
        print(clean_text(shlex.join(argv)))
    print(
        f"(how it stops paying, and what costs money after: {clean_text(str(done.readme))})",
        file=sys.stderr,
    )
    return EXIT_OK
