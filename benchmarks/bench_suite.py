"""Suite benchmark: the README's test command of a base commit against this tree's, side by side.

Usage: .venv/bin/python benchmarks/bench_suite.py [--base REF] [--rounds 1] [--first base|this] [--json]

Each side is the test part of the README's command (between its `<!-- test-command -->` markers,
from the first `.venv/bin/python -m pytest` on; the environment is this venv, already installed)
run on its own tree: the base commit's files exported with `git archive` to a temporary folder,
and this working tree. PYTHONPATH names the tree, so the tests and every process they start
import that tree's package. Runs are interleaved (base, this; then this, base in the next round)
so that the machine's load hits both alike; the load average is sampled every 5 s during each
run and reported beside it, since the machine is shared. `--base` defaults to where this branch
left `main` (git merge-base HEAD main).

Before each run the tree is put as the README's setup leaves a fresh clone (`as_installed`: no
bytecode left by an earlier run, then its compileall step), untimed.

Target (issue 42): this tree's wall time no longer than the base's, with no fewer tests passing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTEST = ".venv/bin/python -m pytest"
_MARKERS = re.compile(r"<!-- test-command -->\n(.*?)<!-- /test-command -->", re.S)
_COUNT = re.compile(r"(\d+) (passed|failed|skipped|error|errors|deselected)\b")


def readme_command(text: str) -> str:
    """The test part of the README's command (its install steps are not what is timed)."""
    match = _MARKERS.search(text)
    if not match:
        raise SystemExit("bench_suite: README.md has no test-command block")
    line = " ".join(x for x in match.group(1).splitlines() if x.strip() and not x.startswith("```"))
    start = line.find(PYTEST)
    if start < 0:
        raise SystemExit(f"bench_suite: the README's test command does not run {PYTEST}")
    return line[start:].replace(".venv/bin/python", shlex.quote(sys.executable))


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()


def export(ref: str, into: Path) -> Path:
    """The files of `ref`, as committed, under `into`."""
    archive = subprocess.run(
        ["git", "archive", "--format=tar", ref], cwd=ROOT, check=True, capture_output=True
    ).stdout
    tar_path = into / "base.tar"
    tar_path.write_bytes(archive)
    tree = into / "tree"
    with tarfile.open(tar_path) as tar:
        tar.extractall(tree, filter="data")
    tar_path.unlink()
    return tree


def as_installed(tree: Path) -> None:
    """The tree as the README's setup leaves a fresh clone: no bytecode of an earlier run (the
    tests' cached assertion rewrites included), then the wizard compiled (its compileall step),
    so that neither side runs on caches the other lacks."""
    for folder in ("ltx_wizard", "tests", "benchmarks"):
        for cache in sorted((tree / folder).rglob("__pycache__")):
            shutil.rmtree(cache, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "compileall", "-q", "ltx_wizard"], cwd=tree, check=True)


class LoadSampler:
    """The 1-minute load average every `period_s` while a run lasts."""

    def __init__(self, period_s: float = 5.0) -> None:
        self.period_s = period_s
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while True:
            self.samples.append(os.getloadavg()[0])
            if self._stop.wait(self.period_s):
                return

    def __enter__(self) -> LoadSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def counts(output: str) -> dict[str, int]:
    """passed/failed/skipped/errors over every pytest summary line of the run (both passes)."""
    found: dict[str, int] = {}
    for line in output.splitlines():
        if not re.match(r"^=*\s*\d+ \w+.* in [\d.]+s", line.strip()):
            continue
        for number, what in _COUNT.findall(line):
            key = "errors" if what.startswith("error") else what
            found[key] = found.get(key, 0) + int(number)
    return found


def run(name: str, command: str, tree: Path, log: Path) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    with LoadSampler() as load:
        start = time.monotonic()
        proc = subprocess.run(
            ["bash", "-c", command],
            cwd=tree,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
        )
        wall = time.monotonic() - start
    log.write_text(proc.stdout, encoding="utf-8")
    return {
        "side": name,
        "command": command,
        "wall_s": round(wall, 1),
        "exit": proc.returncode,
        **counts(proc.stdout),
        "load_mean": round(statistics.fmean(load.samples), 2),
        "load_max": round(max(load.samples), 2),
        "log": str(log),
    }


def table(runs: list[dict[str, object]], base: str) -> str:
    lines = [
        f"{'side':<6} {'wall s':>8} {'passed':>7} {'failed':>7} {'skipped':>7} "
        f"{'load mean':>9} {'load max':>8}  command"
    ]
    for r in runs:
        lines.append(
            f"{r['side']:<6} {r['wall_s']:>8} {r.get('passed', 0):>7} {r.get('failed', 0):>7} "
            f"{r.get('skipped', 0):>7} {r['load_mean']:>9} {r['load_max']:>8}  {r['command']}"
        )
    by_side = {s: [float(r["wall_s"]) for r in runs if r["side"] == s] for s in ("base", "this")}
    if all(by_side.values()):
        base_s, this_s = statistics.median(by_side["base"]), statistics.median(by_side["this"])
        lines.append(
            f"median wall time: base ({base}) {base_s:.0f} s, this tree {this_s:.0f} s: "
            f"{this_s / base_s:.2f}x (target <= 0.50x), {os.cpu_count()} CPUs"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", help="the commit to compare with (default: git merge-base HEAD main)")
    parser.add_argument("--rounds", type=int, default=1)
    # The side that runs second follows a whole suite's run (its files cached, the box warm, what
    # the first left to end): rounds alternate, and one round can be run either way.
    parser.add_argument(
        "--first", choices=("base", "this"), default="base", help="the side round 1 runs first"
    )
    parser.add_argument("--json", action="store_true", help="print the runs as JSON")
    args = parser.parse_args()
    base = args.base or git("merge-base", "HEAD", "main")
    if git("rev-parse", base) == git("rev-parse", "HEAD"):
        raise SystemExit("bench_suite: the base is this commit: name another with --base")
    this_cmd = readme_command((ROOT / "README.md").read_text(encoding="utf-8"))
    base_cmd = readme_command(git("show", f"{base}:README.md"))
    runs: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory(prefix="bench-suite-") as tmp:
        base_tree = export(base, Path(tmp))
        sides = {"base": (base_cmd, base_tree), "this": (this_cmd, ROOT)}
        for round_no in range(args.rounds):
            first, second = ("base", "this") if args.first == "base" else ("this", "base")
            order = (first, second) if round_no % 2 == 0 else (second, first)
            for side in order:
                command, tree = sides[side]
                log = Path(tempfile.gettempdir()) / f"bench-suite-{side}-{round_no}.log"
                print(f"round {round_no + 1}: {side}: {command}", file=sys.stderr, flush=True)
                as_installed(tree)
                runs.append(run(side, command, tree, log))
                print(f"  {runs[-1]['wall_s']} s, load {runs[-1]['load_mean']}", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps({"base": base, "cpus": os.cpu_count(), "runs": runs}, indent=2))
    else:
        print(table(runs, base[:12]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
