"""`ltx-wizard status` on a training log of 1M step lines, side by side with bare baselines.

    .venv/bin/python benchmarks/bench_monitor.py [--steps 1000000] [--rounds 3] [--json]

The log is the real trainer's (ltx_trainer/trainer.py LtxvTrainer.train with
--disable-progress-bars, as launch.sh runs it): rich records padded to the 250 columns launch.sh
sets, a step line every 20 steps (`Step N/T - Loss: …, LR: …, Time/Step: …s, Total Time: …`), a
validation line and a checkpoint line every 250 steps (the shipped t2v_lora.yaml's intervals),
behind launch.sh's marker; `--steps` step lines (1M: ~290 MB, 20M training steps).

Each row is measured in fresh processes, interleaved with its baseline in every round (median of
--rounds), so both meet the same load:
- first call: `ltx-wizard status RUN` with no cursor (the whole log) against a plain regex scan
  of the whole file for step lines (`re.findall` over the bytes, in a bare Python);
- next call: `ltx-wizard status RUN` after 1,000 more step lines (the cursor beside the log: only
  the new bytes and the tail) against `tail -n 40` of the log;
- watch refresh: one refresh of a running RunMonitor after 250 MB were appended (5 s of a 50 MB/s
  writer, the default --watch interval) and the trainer's closing statistics, against the regex
  scan of those 250 MB; it must see the end (state finished) in that one refresh.
CPU is the children's user+system time (getrusage); "work" is the status call's own CPU inside
the process, imports excluded. Targets (#36.3, #31.8): first call < 2 s of CPU (work), next call
< 0.2 s of CPU (work), a watch refresh shorter than the 5 s interval.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WIDTH = 250
APPEND = 1000
WATCH_BYTES = 250 << 20
TARGET_FIRST_CPU_S, TARGET_NEXT_CPU_S, TARGET_REFRESH_S = 2.0, 0.2, 5.0
CONFIG = "optimization:\n  steps: {steps}\ncheckpoints:\n  interval: 250\nvalidation:\n  interval: 250\n"
SCAN = (
    "import re, sys\nsteps = re.compile(rb'Step (\\d+)/(\\d+) - Loss: ([^,\\s]+)')\n"
    "with open(sys.argv[1], 'rb') as fh:\n    fh.seek(int(sys.argv[2]))\n"
    "    found = steps.findall(fh.read())\nprint(len(found))\n"
)


def _record(text: str, src: str, level: str = "INFO") -> str:
    return f"{level:<8} {text}".ljust(WIDTH - len(src) - 1) + f" {src}\n"


def _lines(first: int, count: int, total: int) -> str:
    """Step lines from `first`; a save and a validation at every multiple of 250 come before the
    step line that follows them (train(): validate, save, then log)."""
    out = []
    projected = 1.55 * total
    projection = f"{projected // 3600:.0f}h {projected % 3600 // 60:.0f}m"
    for step in range(first, first + 20 * count, 20):
        mark = step // 250 * 250
        if mark > step - 20:
            out.append(
                _record(f"🎥 Validation samples for step {mark} saved in samples", "validation_runner.py:310")
            )
            out.append(
                _record(
                    f"💾 Lora weights for step {mark} saved in checkpoints/"
                    f"lora_weights_step_{mark:05d}.safetensors",
                    "trainer.py:981",
                )
            )
        loss = 0.11 + 0.25 / (1 + step / 3000)
        out.append(
            _record(
                f"Step {step}/{total} - Loss: {loss:.4f}, LR: 1.00e-04, Time/Step: "
                f"1.55s, Total Time: {projection}",
                "trainer.py:307",
            )
        )
    return "".join(out)


def write_log(path: Path, first: int, count: int, total: int) -> int:
    """`count` step lines from step `first`; returns the next step."""
    with path.open("a", encoding="utf-8") as fh:
        if first == 20:
            fh.write("=== 2026-01-02T03:04:00Z launch.sh started, pid 4321\n")
        for start in range(0, count, 20_000):
            n = min(20_000, count - start)
            fh.write(_lines(first + 20 * start, n, total))
    return first + 20 * count


def _statistics() -> str:
    return _record("📊 Training Statistics:", "trainer.py:935") + "".join(
        f"          {line}".ljust(WIDTH) + "\n"
        for line in (
            "- Total time: 860000.0 minutes",
            "- Training speed: 0.64 steps/second",
            "- Samples/second: 0.64",
            "- Peak GPU memory: 30.12 GB",
        )
    )


def _run(argv: list[str]) -> tuple[float, float, str]:
    """(wall s, the child's CPU s, stdout) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    out = subprocess.run(argv, check=True, capture_output=True, text=True, cwd=ROOT).stdout
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out


def _status(run: Path) -> dict:
    wall, cpu, out = _run([sys.executable, __file__, "--child", str(run)])
    row = json.loads(out)
    row.update(wall_s=wall, cpu_s=cpu)
    return row


def child(run: Path) -> dict:
    """`ltx-wizard status RUN` in this process: its imports, then its work, each timed."""
    cpu = time.process_time()
    from ltx_wizard.cli import main
    from ltx_wizard.core.monitor import report, status, summary  # noqa: F401 - what `status` loads

    imports = time.process_time() - cpu
    cpu = time.process_time()
    with open(os.devnull, "w") as sink:
        saved, sys.stdout = sys.stdout, sink
        try:
            code = main(["status", str(run)])
        finally:
            sys.stdout = saved
    assert code == 0
    return {
        "imports_cpu_s": imports,
        "work_cpu_s": time.process_time() - cpu,
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def _median(rows: list[dict], key: str) -> float:
    return statistics.median(row[key] for row in rows)


def measure_calls(run: Path, rounds: int, next_step: int, total: int) -> dict:
    log = run / "logs" / "train.log"
    cursor = log.with_name(log.name + ".status-cursor.json")
    first, scan, nxt, tail = [], [], [], []
    for _ in range(rounds):
        cursor.unlink(missing_ok=True)
        first.append(_status(run))
        wall, cpu, _ = _run([sys.executable, "-c", SCAN, str(log), "0"])
        scan.append({"wall_s": wall, "cpu_s": cpu})
        next_step = write_log(log, next_step, APPEND, total)
        nxt.append(_status(run))
        wall, cpu, _ = _run(["tail", "-n", "40", str(log)])
        tail.append({"wall_s": wall, "cpu_s": cpu})
    return {"first": first, "scan": scan, "next": nxt, "tail": tail, "next_step": next_step}


def measure_watch(run: Path, next_step: int, total: int) -> dict:
    """One refresh of a running monitor after 250 MB and the end were written."""
    from ltx_wizard.core.monitor.status import RunMonitor

    log = run / "logs" / "train.log"
    monitor = RunMonitor(run, gpu_reader=lambda visible: ([], None))
    monitor.status(gpus=False)
    start = log.stat().st_size
    lines = WATCH_BYTES // (WIDTH + 1)
    write_log(log, next_step, lines, total)
    with log.open("a", encoding="utf-8") as fh:
        fh.write(_statistics())
    cpu, started = time.process_time(), time.perf_counter()
    status = monitor.status(gpus=False)
    refresh = {
        "wall_s": time.perf_counter() - started,
        "cpu_s": time.process_time() - cpu,
        "state": status.state,
        "mb": (log.stat().st_size - start) / 2**20,
    }
    wall, cpu, _ = _run([sys.executable, "-c", SCAN, str(log), str(start)])
    return {"refresh": refresh, "scan": {"wall_s": wall, "cpu_s": cpu}}


def _table(result: dict) -> list[str]:
    calls, watch = result["calls"], result["watch"]
    rows = [
        ("status, first call (whole log)", calls["first"], "regex scan of the log", calls["scan"]),
        (f"status, next call (+{APPEND:,} lines)", calls["next"], "tail -n 40", calls["tail"]),
        (
            f"watch refresh (+{watch['refresh']['mb']:.0f} MB)",
            [watch["refresh"]],
            "regex scan of the new bytes",
            [watch["scan"]],
        ),
    ]
    out = [
        f"{'measure':<36} {'wall s':>8} {'CPU s':>8} {'work CPU s':>11}   {'baseline':<28} "
        f"{'wall s':>8} {'CPU s':>8} {'CPU ratio':>10}"
    ]
    for name, mine, base_name, base in rows:
        work = _median(mine, "work_cpu_s") if "work_cpu_s" in mine[0] else _median(mine, "cpu_s")
        ratio = _median(mine, "cpu_s") / max(_median(base, "cpu_s"), 1e-3)
        out.append(
            f"{name:<36} {_median(mine, 'wall_s'):>8.3f} {_median(mine, 'cpu_s'):>8.3f} "
            f"{work:>11.3f}   {base_name:<28} {_median(base, 'wall_s'):>8.3f} "
            f"{_median(base, 'cpu_s'):>8.3f} {ratio:>9.2f}x"
        )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1_000_000, help="step lines in the log")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(Path(args.child))))
        return 0
    tmp = Path(tempfile.mkdtemp(prefix="bench-monitor-"))
    try:
        run = tmp / "run"
        (run / "logs").mkdir(parents=True)
        total = 20 * (args.steps + args.rounds * APPEND + WATCH_BYTES // WIDTH + 100)
        (run / "config.yaml").write_text(CONFIG.format(steps=total), encoding="utf-8")
        next_step = write_log(run / "logs" / "train.log", 20, args.steps, total)
        size = (run / "logs" / "train.log").stat().st_size
        calls = measure_calls(run, args.rounds, next_step, total)
        watch = measure_watch(run, calls.pop("next_step"), total)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    result = {"step_lines": args.steps, "log_mb": size / 2**20, "calls": calls, "watch": watch}
    verdict = {
        "first_call_work_cpu": _median(calls["first"], "work_cpu_s") < TARGET_FIRST_CPU_S,
        "next_call_work_cpu": _median(calls["next"], "work_cpu_s") < TARGET_NEXT_CPU_S,
        "watch_refresh": watch["refresh"]["wall_s"] < TARGET_REFRESH_S,
        "watch_sees_the_end": watch["refresh"]["state"] == "finished",
    }
    result["targets_met"] = verdict
    if args.json:
        print(json.dumps(result, indent=2))
        return 0 if all(verdict.values()) else 1
    print(
        f"log: {args.steps:,} step lines, {size / 2**20:.0f} MB; median of {args.rounds} "
        "interleaved rounds (the watch refresh: one)"
    )
    print("\n".join(_table(result)))
    imports = _median(calls["first"], "imports_cpu_s")
    print(
        f"imports of `ltx-wizard status` (in every call's CPU): {imports:.3f} s; peak RSS "
        f"first call {_median(calls['first'], 'rss_mb'):.0f} MB"
    )
    print("targets: " + ", ".join(f"{k} {'met' if v else 'MISSED'}" for k, v in verdict.items()))
    return 0 if all(verdict.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
