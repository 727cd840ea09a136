"""The clip audit of `prepare` on a large folder, against a bare PyAV loop over the same files.

    .venv/bin/python benchmarks/bench_prepare.py [--clips 10000] [--json]

Writes --clips real H.264/AAC clips at 1280x720 (five kinds made once with PyAV: plain, phone
clip stored rotated, silent, short, long; the rest hard links to them, each its own path, so each
is read) and times, each in a fresh process:

- bare: a loop that opens every file with PyAV and reads its video stream's size, frame count
  and rate and whether it has sound (what any audit must read at least), one file after another;
- audit: what `ltx-wizard prepare` and the Prepare screen run (core/prepare/audit.py
  probe_staged -> core/dataset/clip_probe.py probe_clips, parallel, cache off, then every
  clip judged by the trainer's rules and the bucket suggested), inside an asyncio loop as the
  screen runs it (asyncio.to_thread), with a ticker measuring the longest the loop was held
  (what a key press would wait) and the progress updates that reached it;
- audit, cached: the same again with the facts cache filled (a rerun of prepare).

Targets: the audit within 1.5x the bare loop's wall time (it reads more per clip: the display
matrix, the cache, the judging; in parallel) and under 60 s for 10,000 clips; 99 % of the
loop's turns held under 100 ms (its longest and the same loop alone beside it: the machine's own
noise); progress at least every 1 % of the clips.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TARGET_RATIO, TARGET_STALL_MS, TARGET_PER_CLIP_S = 1.5, 100.0, 60.0 / 10_000
KINDS = {
    "plain": {"frames": 97},
    "phone": {"frames": 97, "rotation": -90},
    "silent": {"frames": 97, "audio": False},
    "short": {"frames": 33},
    "long": {"frames": 300, "scenes": 3},
}

BARE = r"""
import sys, time, av
from pathlib import Path
paths = sorted(Path(sys.argv[1]).rglob("*.mp4"))
t = time.perf_counter()
seen = 0
for p in paths:
    with av.open(str(p)) as c:
        v = c.streams.video[0]
        seen += (v.codec_context.width or 0) > 0 and (v.frames or 0) >= 0
        _ = (v.average_rate, bool(c.streams.audio))
print(time.perf_counter() - t, len(paths))
"""

AUDIT = r"""
import asyncio, json, sys, time
from pathlib import Path
from ltx_wizard.core.dataset.clip_cache import FactsCache
from ltx_wizard.core.prepare.audit import audit, probe_staged

folder, cache_dir = Path(sys.argv[1]), sys.argv[2]
clips = {str(p.relative_to(folder)): p for p in sorted(folder.rglob("*.mp4"))}
cache = FactsCache(Path(cache_dir)) if cache_dir != "-" else False

async def held(seconds=None, until=None):
    # the loop's tick delays (ms) while it runs for `seconds` or until `until` is set
    delays, start = [], time.perf_counter()
    last = start
    while not (until.is_set() if until else time.perf_counter() - start > seconds):
        await asyncio.sleep(0.005)
        now = time.perf_counter()
        delays.append((now - last - 0.005) * 1000)
        last = now
    return sorted(delays) or [0.0]

async def main():
    idle = await held(seconds=2.0)  # the machine's own noise, nothing else running here
    updates, done = [0], asyncio.Event()
    loop = asyncio.get_running_loop()
    def progress(d, t):
        loop.call_soon_threadsafe(lambda: updates.__setitem__(0, updates[0] + 1))
    tick = asyncio.create_task(held(until=done))
    t = time.perf_counter()
    facts = await asyncio.to_thread(probe_staged, clips, on_progress=progress, cache=cache)
    report = await asyncio.to_thread(audit, facts, buckets=None, audio_trained=True)
    wall = time.perf_counter() - t
    done.set()
    delays = await tick
    p99 = lambda d: d[min(len(d) - 1, int(len(d) * 0.99))]
    kinds = sorted({f.kind for f in report.findings})
    print(json.dumps({"wall_s": wall, "clips": len(facts), "stall_ms": delays[-1],
                      "stall_p99_ms": p99(delays), "idle_stall_ms": idle[-1],
                      "idle_p99_ms": p99(idle), "updates": updates[0], "bucket": report.bucket,
                      "kinds": kinds, "dropped": len(report.dropped),
                      "rotated": len(report.rotated)}))

asyncio.run(main())
"""


def make_folder(root: Path, count: int) -> Path:
    from ltx_wizard.demo.lookalike_raw_clips import write_video

    folder = root / "clips"
    made = [
        write_video(root / "kinds" / f"{name}.mp4", width=1280, height=720, **spec)
        for name, spec in KINDS.items()
    ]
    for i in range(count):
        sub = folder / f"{i // 1000:02d}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"clip_{i:05d}.mp4").hardlink_to(made[i % len(made)])
    return folder


def run(code: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=ROOT, check=True
    )
    return done.stdout.strip().splitlines()[-1]


def measure(folder: Path, cache_dir: Path) -> dict:
    bare_s, files = run(BARE, str(folder)).split()
    cold = json.loads(run(AUDIT, str(folder), str(cache_dir)))
    warm = json.loads(run(AUDIT, str(folder), str(cache_dir)))
    return {"clips": int(files), "bare_s": float(bare_s), "audit": cold, "cached": warm}


def table(m: dict) -> str:
    bare = m["bare_s"]
    rows = [
        ("bare PyAV loop (serial)", bare, None, None),
        (
            "audit (parallel probe + judging)",
            m["audit"]["wall_s"],
            m["audit"]["stall_ms"],
            m["audit"]["updates"],
        ),
        (
            "audit, facts cached (a rerun)",
            m["cached"]["wall_s"],
            m["cached"]["stall_ms"],
            m["cached"]["updates"],
        ),
    ]
    out = [
        f"{m['clips']:,} clips of 1280x720 (5 kinds; hard links, each its own path)",
        f"{'':36} {'wall s':>8} {'clips/s':>9} {'x bare':>7} {'loop held ms':>13} "
        f"{'p99 ms':>7} {'updates':>8}",
    ]
    p99 = {"audit": m["audit"]["stall_p99_ms"], "cached": m["cached"]["stall_p99_ms"]}
    for (name, wall, stall, updates), key in zip(rows, (None, "audit", "cached")):
        out.append(
            f"{name:36} {wall:8.2f} {m['clips'] / wall:9.0f} {wall / bare:7.2f} "
            f"{'-' if stall is None else f'{stall:.1f}':>13} "
            f"{'-' if key is None else f'{p99[key]:.1f}':>7} "
            f"{'-' if updates is None else updates:>8}"
        )
    cold = m["audit"]
    out.append(
        f"{'the loop alone, 2 s before (machine noise)':36} {'':>8} {'':>9} {'':>7} "
        f"{cold['idle_stall_ms']:13.1f} {cold['idle_p99_ms']:7.1f}"
    )
    out.append(
        f"findings: {', '.join(cold['kinds'])}; {cold['dropped']:,} left out, "
        f"{cold['rotated']:,} rotated; suggested bucket {cold['bucket']}"
    )
    ok = (
        cold["wall_s"] / bare <= TARGET_RATIO
        and cold["stall_p99_ms"] <= TARGET_STALL_MS
        and cold["updates"] >= 100
        and cold["wall_s"] <= TARGET_PER_CLIP_S * m["clips"]
    )
    out.append(
        f"targets (audit <= {TARGET_RATIO}x bare and <= {TARGET_PER_CLIP_S * 1000:.0f} ms "
        f"a clip, loop held <= {TARGET_STALL_MS:.0f} ms at p99, progress every 1 %): "
        f"{'met' if ok else 'NOT met'}"
    )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clips", type=int, default=10_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="bench-prepare-"))
    try:
        folder = make_folder(root, args.clips)
        result = measure(folder, root / "cache")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(json.dumps(result, indent=2) if args.json else table(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
