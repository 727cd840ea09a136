"""The run folder's readers through the codec (msgspec) against the code before it, side by side.

    .venv/bin/python benchmarks/bench_codec.py [--baseline REF] [--rounds 5] [--repeats 200] [--json]

The baseline is the wizard at REF (default: the commit before the codec, 7c0a3c5), extracted with
`git archive` into a temporary folder; both read the same files, tests/core/io/old_run/ (written
by the baseline's own writers: plan, eval, autotune, prepare), through the functions the commands
call (read_run_meta, plan's read_record, preprocess's read_state, read_tune_record, the eval
job's, state's and manifest's readers, prepare.json's). Each round runs one fresh process per side,
interleaved so machine load hits both alike; medians of --rounds:
  - import: importing the readers' modules (what a command pays before its first read);
  - first read: each file's first read in that process (pydantic's schema build, msgspec's
    decoder set-up, a lazy import of pydantic included);
  - decode: each file's read once warm (median of --repeats), the steady cost.
Ratios are codec / baseline (below 1: the codec is faster). Targets: the import no more than
1.2x the baseline's; every first read under 10 ms and every warm decode under 1 ms (a command reads
a handful of these files once: the sub-millisecond ratios are shown, not held).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "core" / "io" / "old_run"
BASELINE = "7c0a3c5"
TARGET_IMPORT_RATIO = 1.2
TARGET_FIRST_S = 0.010
TARGET_DECODE_S = 0.001

CHILD = r"""
import importlib, json, statistics, sys, time
from pathlib import Path
run, repeats = Path(sys.argv[1]), int(sys.argv[2])
t0 = time.perf_counter()
mods = {n: importlib.import_module("ltx_wizard.core." + n) for n in (
    "io.run_meta", "plan.record", "preprocess.state", "tuning.tune_record", "evaluation.job",
    "evaluation.layout", "prepare.outputs")}
try:
    prepare = importlib.import_module("ltx_wizard.core.prepare.prepare_record").read_prepare_record
except ImportError:  # the baseline: a raw dict read beside the dataset
    prepare = lambda r: mods["prepare.outputs"].read_record(r / "dataset")
imported = time.perf_counter() - t0
readers = {
    "run.json": mods["io.run_meta"].read_run_meta,
    "plan.json": mods["plan.record"].read_record,
    "preprocess.json": mods["preprocess.state"].read_state,
    "autotune.json": mods["tuning.tune_record"].read_tune_record,
    "eval-job.json": mods["evaluation.job"].read_job,
    "eval-state.json": mods["evaluation.job"].read_state,
    "prompts.json": mods["evaluation.layout"].read_manifest,
    "prepare.json": prepare,
}
first, warm = {}, {}
for name, read in readers.items():
    t = time.perf_counter()
    assert read(run) is not None, name
    first[name] = time.perf_counter() - t
for name, read in readers.items():
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        read(run)
        times.append(time.perf_counter() - t)
    warm[name] = statistics.median(times)
import ltx_wizard
assert Path(ltx_wizard.__file__).parents[1] == Path(sys.path[1]), (ltx_wizard.__file__, sys.path[:2])
print(json.dumps({"import_s": imported, "first_s": first, "decode_s": warm}))
"""


def _tree(ref: str, into: Path) -> Path:
    """The wizard at `ref`, as files (no checkout touched)."""
    into.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref, "ltx_wizard"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def _child(tree: Path, run: Path, repeats: int) -> dict:
    env = {"PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1", "PATH": "/usr/bin:/bin"}
    out = subprocess.run(  # cwd: not this checkout (`-c` puts the cwd first on the path)
        [sys.executable, "-c", CHILD, str(run), str(repeats)],
        env=env,
        cwd=run,
        check=True,
        capture_output=True,
    )
    return json.loads(out.stdout)


def _median(samples: list[dict], key: str, name: str | None = None) -> float:
    return statistics.median(s[key] if name is None else s[key][name] for s in samples)


def measure(baseline: str, rounds: int, repeats: int) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="bench-codec-"))
    try:
        old = _tree(baseline, tmp / "old")
        run = tmp / "run"
        shutil.copytree(FIXTURES, run)
        sides: dict[str, list[dict]] = {"baseline": [], "codec": []}
        _child(old, run, 1), _child(ROOT, run, 1)  # untimed: the bytecode caches are warm
        for _ in range(rounds):
            sides["baseline"].append(_child(old, run, repeats))
            sides["codec"].append(_child(ROOT, run, repeats))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    rows = {"import": {side: _median(s, "import_s") for side, s in sides.items()}}
    for name in sides["codec"][0]["first_s"]:
        for key, label in (("first_s", "first read"), ("decode_s", "decode")):
            rows[f"{label} {name}"] = {side: _median(s, key, name) for side, s in sides.items()}
    for row in rows.values():
        row["ratio"] = row["codec"] / max(row["baseline"], 1e-9)
    return {"baseline": baseline, "rounds": rounds, "repeats": repeats, "rows": rows}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default=BASELINE, help="the git ref to compare with")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = measure(args.baseline, args.rounds, args.repeats)
    rows = result["rows"]
    verdict = {
        "import_ratio": rows["import"]["ratio"] <= TARGET_IMPORT_RATIO,
        "first_reads": all(r["codec"] < TARGET_FIRST_S for n, r in rows.items() if n.startswith("first")),
        "decodes": all(r["codec"] < TARGET_DECODE_S for n, r in rows.items() if n.startswith("decode")),
    }
    result["targets_met"] = verdict
    met = all(verdict.values())
    if args.json:
        print(json.dumps(result, indent=2))
        return 0 if met else 1
    print(f"baseline {args.baseline}; median of {args.rounds} interleaved rounds, decode of {args.repeats}")
    print(f"{'measure':<28} {'baseline ms':>12} {'codec ms':>10} {'ratio':>8}")
    for name, row in result["rows"].items():
        print(f"{name:<28} {row['baseline'] * 1e3:>12.3f} {row['codec'] * 1e3:>10.3f} {row['ratio']:>7.2f}x")
    print("targets met: " + ", ".join(f"{k} {'yes' if v else 'NO'}" for k, v in verdict.items()))
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
