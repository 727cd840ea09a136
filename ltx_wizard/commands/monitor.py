"""`ltx-wizard monitor RUN [--read-only]`: the wizard opened on the Monitor of an existing run, from
any SSH session. Read-only when another wizard holds the run's lock (the lock decides;
`--read-only` only forces it): everything shown, no Stop, Resume, Apply fix or Compare. cli.py starts the
App for it, as for `ltx-wizard --run-dir RUN`."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "monitor",
        help="open the Monitor on an existing run (read-only while another wizard holds it)",
        description="Open the wizard on RUN's Monitor. When another ltx-wizard holds the run's lock, "
        "this one is read-only and says who holds it (pid, start time); --read-only makes it "
        "read-only in any case.",
    )
    parser.add_argument("run", metavar="RUN", help="the run folder")
    parser.add_argument(
        "--read-only",
        action="store_true",
        help="show everything, offer no Stop, Resume, Apply fix or Compare",
    )
