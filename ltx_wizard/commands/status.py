"""`ltx-wizard status RUN`: the training run's status as one block (`--json` for scripts,
`--watch` to refresh until it ends, `--notify` / `--notify-url` to be told how it ended). Writes
run-summary.md once the run has finished."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from ltx_wizard.core.base.text_safety import clean_text


def _interval(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--interval wants seconds, got {text!r}") from None
    if not 0.2 <= value <= 3600:
        raise argparse.ArgumentTypeError(f"--interval {text} is outside 0.2..3600 seconds")
    return value


def _url(text: str) -> str:
    from ltx_wizard.core.base.errors import UsageError
    from ltx_wizard.core.monitor.notify_post import check_url

    try:
        return check_url(text)
    except UsageError as exc:
        raise argparse.ArgumentTypeError(exc.message.removeprefix("--notify-url ")) from None


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "status",
        help="show a training run's progress, loss, ETA, checkpoints and failure",
        description="Read a run folder's training log (incrementally), its trainer process, "
        "checkpoints, samples and GPUs, and print one status block. Exits 0 whatever the run's "
        "state (the state is in the output); 2 when RUN is not a run folder. With --notify or "
        "--notify-url (which imply --watch) the watch ends with the run and exits with its cause: "
        "0 done, 3 out of GPU memory, 4 NaN loss, 5 crashed, 6 stalled, 7 stopped with no error.",
    )
    parser.add_argument("run", metavar="RUN", help="the run folder")
    parser.add_argument(
        "--json", action="store_true", help="machine-readable output (with --watch: one JSON object per line)"
    )
    parser.add_argument(
        "--watch", action="store_true", help="refresh until the run is no longer live (Ctrl-C leaves)"
    )
    parser.add_argument(
        "--interval",
        type=_interval,
        default=5.0,
        metavar="S",
        help="seconds between refreshes with --watch (default 5; at most 10 with --notify or "
        "--notify-url: the ping comes within one refresh of the trainer's exit)",
    )
    parser.add_argument(
        "--notify",
        action="store_true",
        help="when the run ends (done, OOM, NaN, a crash, stopped) or stalls, send a desktop "
        "notification through the terminal (OSC 777 and OSC 9, OSC 99 on kitty, and BEL; "
        "through tmux with allow-passthrough on), once per ending",
    )
    parser.add_argument(
        "--notify-url",
        type=_url,
        metavar="URL",
        help="POST the ending as JSON (run, cause, step, loss, text) to this http(s) URL (a "
        "10 s timeout; an error is one line, never fatal)",
    )
    parser.set_defaults(func=run)


def _print(status, as_json: bool, watch: bool, note: str | None, ending=None) -> None:
    from ltx_wizard.core.monitor.report import as_json as to_json, block, dumps

    if as_json:
        doc = to_json(status)
        doc["summary_written"] = note
        if ending is not None:
            doc["ending"] = ending.as_json()
        print(dumps(doc, indent=None if watch else 2), flush=True)
        return
    if watch and sys.stdout.isatty():
        sys.stdout.write("\x1b[H\x1b[2J")  # clear, top left: the block replaces the last one
    lines = block(status)
    if note:
        lines.append(f"Summary: {note}")
    print("\n".join(lines), flush=True)
    if watch and not sys.stdout.isatty():
        print("", flush=True)


def _unreadable_while_watching(run_dir: Path, exc, said: set[str]) -> bool:
    """The log became a FIFO (or a device, a socket) during --watch: said once on stderr; True
    while the trainer still runs (keep watching: the log may come back), False once it ended."""
    from ltx_wizard.core.monitor.trainer_process import trainer_process

    if exc.message not in said:
        said.add(exc.message)
        print(f"ltx-wizard: {clean_text(exc.message)}", file=sys.stderr, flush=True)
    return trainer_process(run_dir) is not None


def run(args: argparse.Namespace) -> int:
    from ltx_wizard.core.monitor.log_reader import LogNotRegular
    from ltx_wizard.core.monitor.status import RunMonitor, check_run
    from ltx_wizard.core.monitor.summary import ensure_summary

    run_dir = Path(args.run).expanduser().absolute()
    check_run(run_dir)
    monitor = RunMonitor(run_dir)
    notifier = None
    if args.notify or args.notify_url:
        from ltx_wizard.commands.status_notify import NOTIFY_POLL_MAX_S, Notifier

        notifier = Notifier(run_dir, args.notify, args.notify_url)
        args.watch, args.interval = True, min(args.interval, NOTIFY_POLL_MAX_S)
    shown = False
    said: set[str] = set()
    try:
        while True:
            started = time.monotonic()
            try:
                status = monitor.status()
            except LogNotRegular as exc:
                if not (args.watch and shown) or not _unreadable_while_watching(run_dir, exc, said):
                    raise
                time.sleep(args.interval)
                continue
            written = ensure_summary(status)
            ending = notifier.ending(status) if notifier is not None else None
            _print(status, args.json, args.watch, str(written) if written else None, ending)
            shown = True
            if notifier is not None and ending is not None:
                return notifier.send(ending, args.json)
            if not args.watch or status.state != "live":
                return 0
            # the interval is from one refresh's start to the next: a slow refresh (a fast
            # writer's backlog) does not stretch it
            time.sleep(max(0.0, args.interval - (time.monotonic() - started)))
    except KeyboardInterrupt:
        return 0
