"""Options shared by several commands: where the GPU facts come from."""

from __future__ import annotations

import argparse
import json
import sys

from typing import TYPE_CHECKING, Any, Awaitable

from ltx_wizard.core.base.errors import UsageError, WizardError

if TYPE_CHECKING:  # `ltx-wizard --version` and the wizard's start never need these modules
    from ltx_wizard.core.gpu.assessment import Assessment
    from ltx_wizard.core.gpu.devices import ProbeResult


def _positive_gb(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--vram-gb wants a number of GB, got {text!r}") from None
    if not 1 <= value <= 4096:
        raise argparse.ArgumentTypeError(f"--vram-gb {text} is outside 1..4096 GB")
    return value


def add_gpu_source_args(parser: argparse.ArgumentParser, *, top_level: bool = False) -> None:
    """--from-csv / --simulate / --vram-gb. On a subcommand they default to SUPPRESS, so a value
    given before the command (`ltx-wizard --simulate h100 probe`) is not reset by the subparser."""
    default = None if top_level else argparse.SUPPRESS
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--from-csv",
        default=default,
        metavar="FILE",
        help="plan from a saved `nvidia-smi --query-gpu=name,memory.total --format=csv` output",
    )
    group.add_argument(
        "--simulate",
        default=default,
        metavar="PRESET",
        help="simulated GPUs (e.g. rtx5090, a6000, h100, 8xh100)",
    )
    parser.add_argument(
        "--vram-gb",
        default=default,
        type=_positive_gb,
        metavar="N",
        help="per-GPU memory in GB, when the driver does not report it",
    )


def probe_from_args(args: argparse.Namespace) -> ProbeResult:
    from ltx_wizard.core.gpu.probe import resolve_probe

    return resolve_probe(from_csv=getattr(args, "from_csv", None), simulate=getattr(args, "simulate", None))


def assessment_from_args(args: argparse.Namespace) -> Assessment:
    from ltx_wizard.core.gpu.assessment import assess

    return assess(probe_from_args(args), vram_gb=getattr(args, "vram_gb", None))


def print_json(data: object) -> None:
    json.dump(data, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


def require_known_tier(assessment: Assessment) -> None:
    """Commands that go on need a tier: unknown memory must be stated first."""
    if assessment.per_gpu_vram_gb is None:
        raise UsageError("per-GPU memory is unknown (the driver does not report it): pass --vram-gb N")


class Stopped(WizardError):
    """SIGTERM or SIGHUP (an SSH drop) stopped the step: exit 128 + the signal, as a shell says."""

    def __init__(self, signum: int, title: str, words: str) -> None:
        import signal

        super().__init__(f"{title} stopped by {signal.Signals(signum).name}: {words}")
        self.exit_code = 128 + signum


def run_until_signal(step: Awaitable[Any], title: str, words: str) -> Any:
    """asyncio.run(step), where SIGINT, SIGTERM and SIGHUP (core/proc's one handler) cancel the
    step, whose cleanup stops its child by the one stop rule, instead of the wizard dying and
    leaving it to run on in its own session. `words`: what the one line says of the child."""
    import asyncio
    import signal

    from ltx_wizard.core.proc.signals import install_on_loop

    async def main() -> Any:
        loop, task, got = asyncio.get_running_loop(), asyncio.current_task(), []
        assert task is not None  # main() runs as asyncio.run's task

        def stop(sig: int) -> None:
            got.append(sig)
            task.cancel()

        uninstall = install_on_loop(loop, stop, notify_first=True)
        try:
            return await step
        except asyncio.CancelledError:
            if not got:
                raise
            if got[0] != signal.SIGINT:
                raise Stopped(got[0], title, words) from None
            raise KeyboardInterrupt from None  # Ctrl-C: "interrupted", 130
        finally:
            uninstall()

    return asyncio.run(main())
