"""Turn a recorded LTX-2 trainer log into a test-corpus file (tests/data/trainer_logs/).

usage: python scripts/anonymise_trainer_log.py IN OUT --map /recorded/prefix=/neutral/path ...

Each `--map OLD=NEW` rewrites a machine path to a neutral one of the same length, so rich's
layout (wrapped lines, the right-hand source column, table borders) stays exactly as the trainer
printed it: the parser relies on that layout. Lines the recording harness added (`[harness] ...`,
`rc=N`) and the traceback frames of the harness's own launcher (it ran scripts/train.py through
runpy) are dropped; a user's `python scripts/train.py` has neither. Everything else is kept.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

_HARNESS_LINE = re.compile(r"^(\[harness\] |rc=\d+$)")
_LAUNCHER_FRAME = re.compile(r'^  File "(<frozen runpy>|[^"]*/run_trainer\.py)", line \d+')


def corpus_lines(lines: list[str], mapping: list[tuple[str, str]]) -> list[str]:
    kept: list[str] = []
    in_frame = False
    for line in lines:
        if _LAUNCHER_FRAME.match(line):
            in_frame = True  # the frame's source and caret lines follow, indented further
            continue
        if in_frame and line.startswith("    "):
            continue
        in_frame = False
        if _HARNESS_LINE.match(line):
            continue
        for old, new in mapping:
            line = line.replace(old, new)
        kept.append(line)
    return kept


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("src", type=Path)
    parser.add_argument("dst", type=Path)
    parser.add_argument("--map", action="append", default=[], metavar="OLD=NEW")
    args = parser.parse_args(argv)
    mapping = []
    for item in args.map:
        old, sep, new = item.partition("=")
        if not sep or not old or len(old) != len(new):
            parser.error(f"--map wants OLD=NEW of equal lengths (rich's layout), got {item!r}")
        mapping.append((old, new))
    mapping.sort(key=lambda m: -len(m[0]))  # the longest prefix first
    lines = args.src.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = corpus_lines(lines, mapping)
    tmp = args.dst.with_name(args.dst.name + ".tmp")
    tmp.write_text("".join(kept), encoding="utf-8")
    tmp.replace(args.dst)
    print(f"{args.dst}: {len(kept)} lines kept, {len(lines) - len(kept)} dropped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
