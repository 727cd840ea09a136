"""Benchmark: checking a dataset file's clips costs about what reading them with PyAV costs.

Run: .venv/bin/python benchmarks/bench_dataset.py [--sizes 100,1000,10000] [--rows 1000000]
     [--repeats 3] [--dir DIR] [--json]

Every case runs as a user runs it, in its own process, measured side by side in this one run
(interleaved, median of --repeats; wall time and the process's CPU time), so the ratios hold on
any box:
- `check`: `ltx-wizard check --dataset` (the real entry point) on a dataset file of N real tiny
  clips (H.264 at 1280x720 and 720x1280, some silent, made with PyAV), with an empty clip-facts
  cache ("cold"), then again with the cache it left ("warm": what an edit of another field costs);
- `bare PyAV`: a plain loop over the same N files opening each with PyAV and reading the stream
  facts the check needs (frames, rates, size, duration, audio): the floor the issue names;
- `bare, 1 thread`: the same loop on one worker thread (the wizard reads clips on worker
  threads; a busy box has shown either one faster, so both are measured);
- `old ffprobe`: the previous check, one ffprobe process per clip for the first 500 clips only
  (its cap), sequentially (skipped without ffprobe on PATH);
- at --rows (1M) rows naming the 10,000 clips: `check` against a plain scan (csv reader, a stat
  per row, and the bare PyAV loop over the clips the check samples).
Targets (issue #36, #31): the check of 10,000 clips within 2x the bare PyAV loop; the 1M-row
check done, with progress, in bounded time (its sample is 10,000 clips).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ltx_wizard.core.dataset.checks import READ_ALL_MAX  # noqa: E402 - after the path insert above

TARGET_RATIO = 2.0
OLD_CAP = 500  # the previous checks.py MAX_PROBED
TEMPLATES = ({"frames": 97}, {"frames": 121, "audio": False}, {"frames": 73, "width": 720, "height": 1280})

BARE = """
import sys, threading, av
def loop():
    for line in open(sys.argv[1], encoding="utf-8"):
        with av.open(line.rstrip("\\n")) as c:
            v = c.streams.video[0]
            facts = (v.frames, v.average_rate, v.base_rate, v.duration, v.time_base,
                     v.codec_context.width, v.codec_context.height, len(c.streams.audio))
if sys.argv[2] == "thread":  # the same loop on one other thread (see the module's note)
    worker = threading.Thread(target=loop)
    worker.start()
    worker.join()
else:
    loop()
"""
OLD = """
import json, subprocess, sys
for line in list(open(sys.argv[1], encoding="utf-8"))[:int(sys.argv[2])]:
    done = subprocess.run(["ffprobe", "-v", "error", "-show_entries",
                           "stream=codec_type,width,height,nb_frames,avg_frame_rate,r_frame_rate,"
                           "duration", "-of", "json", line.rstrip("\\n")], capture_output=True)
    json.loads(done.stdout or b"{}")
"""
SCAN = """
import csv, os, sys, av
folder, picked = os.path.dirname(sys.argv[1]), set()
with open(sys.argv[1], encoding="utf-8", newline="") as f:
    rows = list(csv.reader(f))[1:]
for row in rows:
    os.path.isfile(os.path.join(folder, row[1]))
step = max(1, len(rows) // int(sys.argv[2]))
for row in rows[::step]:
    path = os.path.join(folder, row[1])
    if path not in picked:
        picked.add(path)
        with av.open(path) as c:
            v = c.streams.video[0]
            facts = (v.frames, v.average_rate, v.duration, v.codec_context.width, len(c.streams.audio))
"""


def make_clips(folder: Path, count: int) -> list[Path]:
    """`count` real clips: the templates written once with PyAV, then copied."""
    from ltx_wizard.demo.lookalike_media import write_clip

    folder.mkdir(parents=True, exist_ok=True)
    data = [write_clip(folder / f"template{i}.mp4", **t).read_bytes() for i, t in enumerate(TEMPLATES)]
    paths = []
    for i in range(count):
        path = folder / "videos" / f"clip_{i:05d}.mp4"
        if not path.exists():
            path.parent.mkdir(exist_ok=True)
            path.write_bytes(data[i % len(data)])
        paths.append(path)
    return paths


def write_dataset(path: Path, clips: list[Path], rows: int) -> Path:
    """A CSV of `rows` rows naming the clips in runs, so that a spread-out sample meets each."""
    per = max(1, rows // len(clips))
    with open(path, "w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["caption", "video"])
        for i in range(rows):
            clip = clips[(i // per) % len(clips)]
            writer.writerow(
                [
                    f"a cat number {i} walks on a sunny floor",  # 1M rows: ~60 MB
                    os.path.relpath(clip, path.parent),
                ]
            )
    return path


def timed(argv: list[str], env: dict) -> dict:
    """Wall and CPU seconds of one child process (with the processes it waited for)."""
    before, start = os.times(), time.perf_counter()
    done = subprocess.run(argv, capture_output=True, env=env, check=False)
    wall, after = time.perf_counter() - start, os.times()
    if done.returncode != 0:
        raise SystemExit(
            f"bench: {' '.join(argv[:4])} failed ({done.returncode}): {done.stderr.decode()[-400:]}"
        )
    cpu = after.children_user - before.children_user + after.children_system - before.children_system
    return {"wall": wall, "cpu": cpu}


def cases(
    work: Path, size: int, dataset: Path, listing: Path, models: dict, env: dict, rows_mode: bool
) -> dict:
    cache = work / f"cache-{size}-{rows_mode}"
    check = [
        sys.executable,
        "-m",
        "ltx_wizard",
        "check",
        "--checkpoint",
        models["ckpt"],
        "--text-encoder",
        models["te"],
        "--dataset",
        str(dataset),
    ]
    cold_env = {**env, "LTX_WIZARD_CACHE_DIR": str(cache)}
    out = {}

    def cold():
        shutil.rmtree(cache, ignore_errors=True)
        return timed(check, cold_env)

    out["check (cold)"] = cold
    out["check (warm)"] = lambda: timed(check, cold_env)
    if rows_mode:
        out["plain scan"] = lambda: timed([sys.executable, "-c", SCAN, str(dataset), str(READ_ALL_MAX)], env)
    else:
        out["bare PyAV"] = lambda: timed([sys.executable, "-c", BARE, str(listing), "main"], env)
        out["bare, 1 thread"] = lambda: timed([sys.executable, "-c", BARE, str(listing), "thread"], env)
        if shutil.which("ffprobe"):
            out["old ffprobe"] = lambda: timed([sys.executable, "-c", OLD, str(listing), str(OLD_CAP)], env)
    return out


def measure(work: Path, sizes: list[int], rows: int, repeats: int) -> list[dict]:
    from ltx_wizard.demo.lookalike_models import make_checkpoint, make_gemma_dir

    clips = make_clips(work / "clips", max(sizes))
    models = {
        "ckpt": str(make_checkpoint(work / "models" / "ckpt.safetensors", params_b=19.0)),
        "te": str(make_gemma_dir(work / "models" / "gemma")),
    }
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    plans = []
    for size in sizes:
        listing = work / f"list-{size}.txt"
        listing.write_text("".join(f"{p}\n" for p in clips[:size]), encoding="utf-8")
        dataset = write_dataset(work / "clips" / f"dataset-{size}.csv", clips[:size], size)
        plans.append(
            (f"{size:,} clips", "bare PyAV", cases(work, size, dataset, listing, models, env, False))
        )
    if rows:
        dataset = write_dataset(work / "clips" / f"dataset-{rows}-rows.csv", clips[:READ_ALL_MAX], rows)
        plans.append((f"{rows:,} rows", "plain scan", cases(work, rows, dataset, work, models, env, True)))
    times: dict = {}
    for _ in range(repeats):  # interleaved: a busy moment hits every case alike
        for label, _base, fns in plans:
            for name, fn in fns.items():
                times.setdefault((label, name), []).append(fn())
    return table(plans, times)


def table(plans, times) -> list[dict]:
    out = []
    for label, base, fns in plans:
        floor = times[(label, base)]
        floor_wall = statistics.median(t["wall"] for t in floor)
        floor_cpu = statistics.median(t["cpu"] for t in floor)
        for name in fns:
            got = times[(label, name)]
            wall = statistics.median(t["wall"] for t in got)
            cpu = statistics.median(t["cpu"] for t in got)
            out.append(
                {
                    "case": label,
                    "what": name,
                    "wall_s": round(wall, 3),
                    "cpu_s": round(cpu, 3),
                    "wall_ratio": round(wall / floor_wall, 2),
                    "cpu_ratio": round(cpu / floor_cpu, 2),
                    "baseline": base,
                }
            )
    return out


def verdict(rows: list[dict], sizes: list[int]) -> dict:
    top = f"{max(sizes):,} clips"
    found = {r["what"]: r for r in rows if r["case"] == top}
    cold, thread = found.get("check (cold)"), found.get("bare, 1 thread")
    return {
        f"check of {top} within {TARGET_RATIO}x bare PyAV (wall)": None
        if cold is None
        else cold["wall_ratio"] <= TARGET_RATIO,
        f"check of {top} within {TARGET_RATIO}x bare PyAV on 1 thread (wall)": None
        if cold is None or thread is None
        else cold["wall_s"] <= TARGET_RATIO * thread["wall_s"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--rows", type=int, default=1_000_000, help="0: skip the big file")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--dir", type=Path, help="work folder (default: a temporary one)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    work = args.dir or Path(tempfile.mkdtemp(prefix="bench-dataset-"))
    try:
        rows = measure(work, sizes, args.rows, args.repeats)
    finally:
        if args.dir is None:
            shutil.rmtree(work, ignore_errors=True)
    targets = verdict(rows, sizes)
    if args.json:
        print(
            json.dumps(
                {
                    "rows": rows,
                    "targets_met": targets,
                    "repeats": args.repeats,
                    "cpus": os.cpu_count(),
                    "load": os.getloadavg(),
                },
                indent=2,
            )
        )
        return 0
    print(f"{'case':<16} {'what':<15} {'wall s':>8} {'cpu s':>8} {'wall x':>7} {'cpu x':>7}  baseline")
    for r in rows:
        print(
            f"{r['case']:<16} {r['what']:<15} {r['wall_s']:>8.2f} {r['cpu_s']:>8.2f} "
            f"{r['wall_ratio']:>7.2f} {r['cpu_ratio']:>7.2f}  {r['baseline']}"
        )
    for name, met in targets.items():
        print(f"target: {name}: {'met' if met else 'NOT met' if met is not None else 'not measured'}")
    print(f"(median of {args.repeats}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
