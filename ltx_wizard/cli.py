"""Command line: argument parsing, the non-interactive commands, and the app factory.

`ltx-wizard` alone starts the Textual wizard; subcommands run headless. Every subcommand lives in
`ltx_wizard/commands/<name>.py` with `register(subparsers)` and `run(args) -> int`. Heavy modules
(textual, the TUI) are imported only when the wizard itself starts, so headless commands stay fast.
"""

from __future__ import annotations

import errno
import os
import sys

from ltx_wizard import __version__
from ltx_wizard.core.base.errors import EXIT_FAILURE, EXIT_STOPPED, WizardError

# argparse, pathlib and typing are imported where used: `ltx-wizard --version` needs none.
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import argparse
    from typing import Sequence

    from ltx_wizard.tui.app import WizardApp

COMMANDS = (
    "probe",
    "check",
    "discover",
    "prepare",
    "plan",
    "preprocess",
    "autotune",
    "status",
    "models",
    "setup",
    "eval",
    "compare",
    "launch",
)


def _commands_needed(argv: Sequence[str] | None) -> tuple[str, ...]:
    """The command modules a parse of `argv` can need. Each costs pydantic, ruamel or the
    autotune code to import, so starting the wizard imports none and a command only its own;
    help (or argv unknown) needs them all. A command's name given as an option's value (say
    `--workspace plan`) only imports one module too many."""
    if argv is None or "-h" in argv or "--help" in argv:
        return COMMANDS
    return tuple(name for name in COMMANDS if name in argv)


def _wizard_parser() -> type[argparse.ArgumentParser]:
    """The parser class, made when first needed (argparse is not imported for `--version`)."""
    import argparse

    class WizardParser(argparse.ArgumentParser):
        """A bad flag is one line, like every other refusal (exit 2 as argparse does)."""

        def error(self, message: str):  # -> NoReturn, as argparse's
            from ltx_wizard.core.base.text_safety import clean_text

            self.exit(2, f"ltx-wizard: {clean_text(message)} (see `{self.prog} --help`)\n")

        def add_argument(self, *names, **kwargs):
            """Each value is checked before use (cli_checks.py): UTF-8, a path's length."""
            from ltx_wizard.cli_checks import checked

            return super().add_argument(*names, **checked(self.prog, names, kwargs))

    return WizardParser


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The full parser; given the argv it will parse, only the command modules that needs."""
    import importlib

    from ltx_wizard.commands.common import add_gpu_source_args

    parser = _wizard_parser()(
        prog="ltx-wizard",
        description="From a fresh GPU box to a tuned LTX-2 training run. "
        "Without a command, starts the interactive wizard.",
    )
    parser.add_argument("--version", action="version", version=f"ltx-wizard {__version__}")
    add_gpu_source_args(parser, top_level=True)
    parser.add_argument(
        "--demo",
        action="store_true",
        help="walk the whole flow on a simulated GPU with generated look-alike files",
    )
    parser.add_argument(  # tui/options.py WizardOptions.demo_data
        "--demo-data",
        choices=("clips", "raw", "latents"),
        help="what --demo starts from: its clips with their dataset.json (clips, the default), "
        "a folder of raw clips for the Prepare screen (raw), or latents already preprocessed (latents)",
    )
    parser.add_argument("--trainer-root", metavar="DIR", help="your LTX-2 checkout")
    parser.add_argument(  # as `ltx-wizard setup --trainer-repo`: the Setup screen's clone
        "--trainer-repo", metavar="URL", help="clone the trainer from this URL or path (a mirror), not GitHub"
    )
    parser.add_argument("--workspace", metavar="DIR", help="where run folders are created")
    parser.add_argument("--run-dir", metavar="DIR", help="open an existing run folder")
    parser.add_argument("--trainer-cmd", metavar="CMD", help="replace the trainer command prefix (autotune)")
    parser.add_argument(
        "--nodes", metavar="N", help="plan for N machines like this one (writes slurm.sbatch)"
    )
    parser.add_argument(  # the choices of tui/images/choice.py CHOICES
        "--graphics",
        choices=("auto", "kitty", "sixel", "halfblocks"),
        help="how keyframes are drawn: auto (what the terminal says it draws), kitty, sixel or "
        "halfblocks; also $LTX_WIZARD_GRAPHICS",
    )
    parser.add_argument(
        "--vllm-url",
        metavar="URL",
        help="a Qwen3-Omni captioner server elsewhere (http://host:8001/v1): fills the Prepare "
        "screen's Captioner server URL (as `prepare --vllm-url`)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    needed = _commands_needed(argv)
    for name in COMMANDS:
        if name in needed:
            importlib.import_module(f"ltx_wizard.commands.{name}").register(sub)
        else:  # named, so that a mistyped command still lists every choice
            sub.add_parser(name)
    return parser


def make_app(args: argparse.Namespace | None = None, **overrides) -> "WizardApp":
    """The one place a WizardApp is built: used by `main` and by the tests."""
    from ltx_wizard.tui.app import WizardApp, WizardOptions

    options = WizardOptions.from_args(args, **overrides)
    return WizardApp(options)


def _command(args: argparse.Namespace) -> int:
    """A headless command under core/proc's one signal handler: SIGINT, SIGTERM or SIGHUP stop
    every child it started, then it leaves with 128 + the signal."""
    from ltx_wizard.core.proc.signals import install_blocking

    try:
        uninstall = install_blocking()
    except ValueError:  # not the main thread (a test driving main() from one): no signals here
        return int(args.func(args))
    try:
        return int(args.func(args))
    finally:
        uninstall()


def reap_orphans() -> str | None:
    """An earlier wizard killed by SIGKILL left children running: stop them; the line that says
    so (None: there were none). A command prints it at once; the TUI shows it on its first screen
    and prints it again on the way out (printed before the app takes the terminal, it was drawn
    over at once and never seen)."""
    from ltx_wizard.core.proc.orphans import reap_orphans as reap

    said = reap()
    return f"ltx-wizard: {said}" if said else None


def _check_wizard_args(args: argparse.Namespace) -> None:
    """The wizard's options that are refused (or normalised) before the screen opens."""
    if args.trainer_cmd is not None:  # bad quoting is refused before the screen opens
        from ltx_wizard.core.autotune.trials.trial_command import split_trainer_cmd

        split_trainer_cmd(args.trainer_cmd)
    if args.run_dir is not None:  # a file or a planted link is refused before the screen
        from ltx_wizard.core.io.safe_fs import check_run_dir

        from pathlib import Path

        check_run_dir(Path(args.run_dir).expanduser().absolute())
    if args.run_dir is not None and not os.path.isdir(os.path.expanduser(args.run_dir)):
        from ltx_wizard.core.base.errors import UsageError

        raise UsageError(
            f"--run-dir {args.run_dir}: no such folder; pass a run folder that `plan` or "
            "the wizard wrote, or leave --run-dir out to start a new run"
        )
    if args.vllm_url is not None:  # a bad URL is said before the screen opens
        from ltx_wizard.core.prepare.captioner import check_server_url

        args.vllm_url = check_server_url(args.vllm_url)
    if args.nodes is not None:  # checked before the screen opens, like --trainer-cmd
        from ltx_wizard.core.launch.multinode import parse_nodes

        args.nodes = parse_nodes(args.nodes)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv == ["--version"]:  # answered before argparse and the option modules are imported
        print(f"ltx-wizard {__version__}")
        return 0
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    try:
        if args.command is None:
            _check_wizard_args(args)  # a refused option stops this start before it reaps
            app = make_app(args, orphans_reaped=reap_orphans())
            result = app.run()
            out, err = app.after_exit()  # the terminal is restored: plain prints from here on
            for line in out:
                print(line)
            for line in err:
                print(line, file=sys.stderr)
            return int(result) if isinstance(result, int) else (app.return_code or 0)
        if said := reap_orphans():
            print(said, file=sys.stderr)
        from ltx_wizard.demo.sim.stand_in import choose_stand_ins

        # the one choice of the stand-in for a command, handed down (the App's start makes the TUI's)
        args.stand_ins = choose_stand_ins(getattr(args, "simulate", None))
        return _command(args)
    except WizardError as exc:
        from ltx_wizard.core.base.text_safety import clean_text

        print(f"ltx-wizard: {clean_text(exc.message)}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("ltx-wizard: interrupted", file=sys.stderr)
        return EXIT_STOPPED
    except BrokenPipeError:  # `ltx-wizard probe | head`: the reader left; nothing to report
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_FAILURE
    except OSError as exc:
        if exc.errno != errno.EIO:
            return _internal_error(exc)
        return EXIT_FAILURE  # the terminal is gone (EIO): nobody is left to read a message
    except Exception as exc:  # last resort: one line, never a traceback, unless asked for
        return _internal_error(exc)


def _internal_error(exc: Exception) -> int:
    """A bug: one line, unless LTX_WIZARD_DEBUG asks for the traceback."""
    if os.environ.get("LTX_WIZARD_DEBUG"):
        raise exc
    print(
        f"ltx-wizard: internal error: {type(exc).__name__}: {exc} "
        "(set LTX_WIZARD_DEBUG=1 for the traceback, and please report it)",
        file=sys.stderr,
    )
    return EXIT_FAILURE
