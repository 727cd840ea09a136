"""`ltx-wizard commands RUN`: every command the wizard ran for a run (logs/commands.jsonl), oldest
first, each as the shell line that reruns it by hand, under a comment line saying when it started
and how it ended. The output is itself a shell script (comments and commands)."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "commands",
        help="list the commands the wizard ran for a run, each as a line you can run by hand",
        description="Print every external command the wizard started for RUN (uv, git, accelerate, "
        "the trainer's scripts, the pipelines, the captioner server, compare's programs), from "
        "RUN/logs/commands.jsonl: `cd DIR && env K=V ... argv`, quoted for the shell; secret "
        "values (names with TOKEN, KEY, SECRET) are read from your own environment.",
    )
    parser.add_argument("run", metavar="RUN", help="the run folder")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ltx_wizard.core.io.commands_file import read_commands
    from ltx_wizard.core.io.run_folder import COMMANDS_LOG, require_config

    run_dir = Path(args.run).expanduser()
    require_config(run_dir)
    commands = read_commands(run_dir)
    if not commands:
        print(f"# no commands recorded in {COMMANDS_LOG.path(run_dir)} yet")
        return 0
    for command in commands:
        took = f", {command.took}" if command.took else ""
        print(f"# {command.when}: {command.outcome}{took}")
        print(command.line)
    return 0
